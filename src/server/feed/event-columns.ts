/**
 * The per-event part of the index, one typed-array column per field (about 40 bytes an event, no JS object per
 * event). A slot is allocated when an id is first seen and never reused, so slot numbers count events in creation
 * order: a cursor's snapshot watermark is simply the slot count at its first request.
 */
export class EventColumns {
  count = 0;
  start = new Float64Array(0);
  /** `-Infinity` while the event is open: it then never matches by end time. */
  end = new Float64Array(0);
  hi = new Int32Array(0);
  lo = new Uint32Array(0);
  type = new Uint32Array(0);
  entity = new Uint32Array(0);
  /** Byte offset and length of the event's current text in the log. */
  offset = new Float64Array(0);
  length = new Uint32Array(0);

  constructor(capacity = 1024) {
    this.grow(capacity);
  }

  /** The columns in a fixed order: the layout of the index snapshot. */
  arrays(): ColumnArray[] {
    return [this.start, this.end, this.hi, this.lo, this.type, this.entity, this.offset, this.length];
  }

  /** Takes over arrays laid out as arrays() returns them (a snapshot's), without copying. */
  adopt(arrays: readonly ColumnArray[], count: number): void {
    const [start, end, hi, lo, type, entity, offset, length] = arrays;
    this.start = ofType(start, Float64Array, count);
    this.end = ofType(end, Float64Array, count);
    this.hi = ofType(hi, Int32Array, count);
    this.lo = ofType(lo, Uint32Array, count);
    this.type = ofType(type, Uint32Array, count);
    this.entity = ofType(entity, Uint32Array, count);
    this.offset = ofType(offset, Float64Array, count);
    this.length = ofType(length, Uint32Array, count);
    this.count = count;
  }

  /** Room for `extra` more slots, growing by doubling so appends are amortised O(1). */
  reserve(extra: number): void {
    const needed = this.count + extra;
    if (needed > this.start.length) this.grow(Math.max(needed, this.start.length * 2));
  }

  private grow(capacity: number): void {
    this.start = resized(this.start, capacity, Float64Array);
    this.end = resized(this.end, capacity, Float64Array);
    this.hi = resized(this.hi, capacity, Int32Array);
    this.lo = resized(this.lo, capacity, Uint32Array);
    this.type = resized(this.type, capacity, Uint32Array);
    this.entity = resized(this.entity, capacity, Uint32Array);
    this.offset = resized(this.offset, capacity, Float64Array);
    this.length = resized(this.length, capacity, Uint32Array);
  }

  /**
   * Feed order is newest first: start time descending, ties by event id descending. Lists keep slots ascending
   * by this key and are read backwards. The key never changes for a slot (it is the event's identity).
   */
  compare(a: number, b: number): number {
    return this.compareKey(a, this.start[b] ?? 0, this.hi[b] ?? 0, this.lo[b] ?? 0);
  }

  compareKey(slot: number, start: number, hi: number, lo: number): number {
    const s = this.start[slot] ?? 0;
    if (s !== start) return s < start ? -1 : 1;
    const h = this.hi[slot] ?? 0;
    if (h !== hi) return h < hi ? -1 : 1;
    const l = this.lo[slot] ?? 0;
    return l === lo ? 0 : l < lo ? -1 : 1;
  }
}

export type ColumnArray = Float64Array | Int32Array | Uint32Array;
type TypedArrayConstructor<T extends ColumnArray> = new (length: number) => T;

/** The array type of each column, in EventColumns.arrays() order (adopt checks a snapshot's against it). */
export const COLUMN_TYPES: readonly (TypedArrayConstructor<ColumnArray> & { BYTES_PER_ELEMENT: number })[] = [
  Float64Array, Float64Array, Int32Array, Uint32Array, Uint32Array, Uint32Array, Float64Array, Uint32Array,
];
/** What the columns hold per event. */
export const COLUMN_BYTES_PER_EVENT = COLUMN_TYPES.reduce((sum, type) => sum + type.BYTES_PER_ELEMENT, 0);

function ofType<T extends ColumnArray>(array: ColumnArray | undefined, make: TypedArrayConstructor<T>, count: number): T {
  if (!(array instanceof make) || array.length < count) throw new Error('index snapshot columns do not match the layout');
  return array;
}

function resized<T extends ColumnArray>(array: T, capacity: number, make: TypedArrayConstructor<T>): T {
  const next = new make(capacity);
  next.set(array.subarray(0, Math.min(array.length, capacity)) as never);
  return next;
}

/** Strings (event types, entity ids) ↔ dense codes. Code 0 means "none". */
export class CodeTable {
  private readonly codes = new Map<string, number>();
  private readonly names: string[] = [''];

  codeOf(name: string | undefined): number {
    if (name === undefined) return 0;
    let code = this.codes.get(name);
    if (code === undefined) {
      code = this.names.length;
      this.codes.set(name, code);
      this.names.push(name);
    }
    return code;
  }

  /** The code of a known name, without adding it. */
  find(name: string): number | undefined {
    return this.codes.get(name);
  }

  /** Every name in code order (code 1 first): restoring them in this order gives every name its old code. */
  list(): string[] {
    return this.names.slice(1);
  }

  nameOf(code: number): string | undefined {
    return code === 0 ? undefined : this.names[code];
  }

  get size(): number {
    return this.names.length;
  }
}

/**
 * `id` → slot, as an open-addressing hash table over the columns: the identity (start, hi, lo) is compared
 * exactly, so there are no id strings in memory and no false matches.
 */
export class IdTable {
  private table: Int32Array = new Int32Array(1 << 12);
  private used = 0;

  constructor(private readonly columns: EventColumns) {}

  find(start: number, hi: number, lo: number): number | undefined {
    const mask = this.table.length - 1;
    for (let i = hash(start, hi, lo) & mask; ; i = (i + 1) & mask) {
      const entry = this.table[i] ?? 0;
      if (entry === 0) return undefined;
      if (this.columns.compareKey(entry - 1, start, hi, lo) === 0) return entry - 1;
    }
  }

  /** Sizes the table for `count` ids at once (a restart knows roughly how many are coming). */
  reserve(count: number): void {
    let size = this.table.length;
    while (size < count * 2) size *= 2;
    if (size > this.table.length) this.rehash(size);
  }

  /** The raw table, for the snapshot: slot + 1 per used cell, 0 for free ones. */
  raw(): Int32Array {
    return this.table;
  }

  /** Takes over a raw table written for the same columns (see raw()). */
  load(table: Int32Array, used: number): void {
    this.table = table;
    this.used = used;
  }

  /** Records a slot whose identity is not in the table yet. */
  add(slot: number): void {
    if ((this.used + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.place(this.table, slot);
    this.used++;
  }

  private place(table: Int32Array, slot: number): void {
    const c = this.columns;
    const mask = table.length - 1;
    let i = hash(c.start[slot] ?? 0, c.hi[slot] ?? 0, c.lo[slot] ?? 0) & mask;
    while ((table[i] ?? 0) !== 0) i = (i + 1) & mask;
    table[i] = slot + 1;
  }

  private rehash(size: number): void {
    const next = new Int32Array(size);
    for (const entry of this.table) if (entry !== 0) this.place(next, entry - 1);
    this.table = next;
  }
}

function hash(start: number, hi: number, lo: number): number {
  let h = Math.imul(lo ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ hi ^ (h >>> 13), 0xc2b2ae35);
  h = Math.imul(h ^ (start % 0x100000000) ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}
