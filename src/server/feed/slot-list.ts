import type { EventColumns } from './event-columns.js';

/**
 * A growable list of slots kept ascending by the feed key (see EventColumns.compare). The global order and every
 * posting list (per event type, per entity) are SlotLists, so a page is a binary search plus a short walk.
 */
export class SlotList {
  items: Uint32Array;
  length = 0;

  constructor(
    private readonly columns: EventColumns,
    capacity = 4,
  ) {
    this.items = new Uint32Array(capacity);
  }

  /** A full list over `items` (sorted), taken over without copying: it grows into a new array when pushed to. */
  static over(columns: EventColumns, items: Uint32Array): SlotList {
    const list = new SlotList(columns, 0);
    list.items = items;
    list.length = items.length;
    return list;
  }

  at(position: number): number {
    return this.items[position] ?? 0;
  }

  /** Appends; the caller guarantees the slot sorts last (the common case: the newest event). */
  push(slot: number): void {
    if (this.length === this.items.length) this.resize(Math.max(4, this.items.length * 2));
    this.items[this.length++] = slot;
  }

  /** Inserts at its sorted place and returns that position. */
  insert(slot: number): number {
    const c = this.columns;
    const position = this.lowerBound(c.start[slot] ?? 0, c.hi[slot] ?? 0, c.lo[slot] ?? 0);
    if (this.length === this.items.length) this.resize(Math.max(4, this.items.length * 2));
    this.items.copyWithin(position + 1, position, this.length);
    this.items[position] = slot;
    this.length++;
    return position;
  }

  /** Removes a slot that is in the list; returns its former position, or -1. */
  remove(slot: number): number {
    const position = this.positionOf(slot);
    if (position < 0) return -1;
    this.items.copyWithin(position, position + 1, this.length);
    this.length--;
    return position;
  }

  positionOf(slot: number): number {
    const c = this.columns;
    const position = this.lowerBound(c.start[slot] ?? 0, c.hi[slot] ?? 0, c.lo[slot] ?? 0);
    return this.items[position] === slot && position < this.length ? position : -1;
  }

  /** First position whose key is ≥ (start, hi, lo); `length` when there is none. */
  lowerBound(start: number, hi: number, lo: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.columns.compareKey(this.items[mid] ?? 0, start, hi, lo) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /** First position whose start time is ≥ `time`. */
  firstAtOrAfter(time: number): number {
    return this.lowerBound(time, -0x80000000, 0);
  }

  /** First position whose start time is > `time`. */
  firstAfter(time: number): number {
    return this.lowerBound(time + 1, -0x80000000, 0);
  }

  /** Writes `slots` (sorted, and sorting after everything before `at`) from position `at` on; the list ends there. */
  assign(slots: Uint32Array, length: number, at = 0): void {
    const total = at + length;
    if (this.items.length < total) this.resize(Math.max(4, total + (total >>> 3)));
    this.items.set(slots.subarray(0, length), at);
    this.length = total;
  }

  private resize(capacity: number): void {
    const next = new Uint32Array(capacity);
    next.set(this.items.subarray(0, this.length));
    this.items = next;
  }
}
