import { CodeTable, EventColumns, IdTable, type ColumnArray } from './event-columns.js';
import type { EventFields } from './event-fields.js';
import { EndBlocks } from './end-blocks.js';
import { SlotList } from './slot-list.js';

export type UpsertOutcome = 'created' | 'replaced';

/**
 * What a snapshot keeps of an index; the end-time blocks are rebuilt from it in O(n). The posting lists are kept too:
 * rebuilding them meant a pass of random reads over every event on each start.
 */
export interface IndexState {
  readonly count: number;
  /** In EventColumns.arrays() order, each at least `count` long. */
  readonly columns: readonly ColumnArray[];
  readonly order: Uint32Array;
  readonly ids: Int32Array;
  readonly types: readonly string[];
  readonly entities: readonly string[];
  /** Each type's and each entity's list by code (sorted slots; empty for a code no event has now). */
  readonly typeLists: readonly Uint32Array[];
  readonly entityLists: readonly Uint32Array[];
}

/**
 * The in-memory index over the event log: typed-array columns, the global order, a posting list per event type
 * and per entity (all ascending by the feed key), the end-time block maxima, and the id table. The texts stay in
 * the log; the index holds only where each current version is.
 */
export class EventIndex {
  readonly columns = new EventColumns();
  readonly ids = new IdTable(this.columns);
  readonly types = new CodeTable();
  readonly entities = new CodeTable();
  readonly order = new SlotList(this.columns, 1024);
  readonly blocks = new EndBlocks(this.columns, this.order);
  private byType: SlotList[] = [];
  private byEntity: SlotList[] = [];
  /** While >= 0, new slots only land in the columns; endBulk() sorts and links them once. */
  private bulkFrom = -1;
  /** A replacement during bulk moved an event to another type or entity (or another end): rebuild, not append. */
  private listsStale = false;

  get size(): number {
    return this.columns.count;
  }

  typeList(code: number): SlotList | undefined {
    return this.byType[code];
  }

  entityList(code: number): SlotList | undefined {
    return this.byEntity[code];
  }

  /** Records the current version of an event: a new slot for a new id, an in-place update for a known one. */
  upsert(fields: EventFields, offset: number, length: number): UpsertOutcome {
    const c = this.columns;
    const end = fields.endTime ?? Number.NEGATIVE_INFINITY;
    const type = this.types.codeOf(fields.eventType);
    const entity = this.entities.codeOf(fields.entityId);
    const existing = this.ids.find(fields.startTime, fields.hi, fields.lo);
    if (existing !== undefined) {
      this.replace(existing, { end, type, entity, offset, length });
      return 'replaced';
    }
    c.reserve(1);
    const slot = c.count++;
    c.start[slot] = fields.startTime;
    c.hi[slot] = fields.hi;
    c.lo[slot] = fields.lo;
    c.end[slot] = end;
    c.type[slot] = type;
    c.entity[slot] = entity;
    c.offset[slot] = offset;
    c.length[slot] = length;
    this.ids.add(slot);
    if (this.bulkFrom < 0) this.link(slot);
    return 'created';
  }

  state(): IndexState {
    return {
      count: this.columns.count,
      columns: this.columns.arrays(),
      order: this.order.items.subarray(0, this.order.length),
      ids: this.ids.raw(),
      types: this.types.list(),
      entities: this.entities.list(),
      typeLists: listContents(this.byType, this.types.size),
      entityLists: listContents(this.byEntity, this.entities.size),
    };
  }

  /** Loads a snapshot's state into this empty index (its arrays are taken over, not copied). */
  restore(state: IndexState): void {
    this.columns.adopt(state.columns, state.count);
    this.ids.load(state.ids, state.count);
    for (const name of state.types) this.types.codeOf(name);
    for (const name of state.entities) this.entities.codeOf(name);
    this.order.assign(state.order, state.count);
    this.byType = adoptLists(state.typeLists, this.columns);
    this.byEntity = adoptLists(state.entityLists, this.columns);
    this.blocks.refreshFrom(0);
  }

  /** Makes room for about `count` more events up front, so a restart does not grow the arrays step by step. */
  reserve(count: number): void {
    this.columns.reserve(count);
    this.ids.reserve(this.columns.count + count);
  }

  beginBulk(): void {
    if (this.bulkFrom < 0) this.bulkFrom = this.columns.count;
  }

  /**
   * Links the slots added since beginBulk(): appended in O(batch) when all are newer than everything stored (a
   * chronological import), else merged into the order with the lists and blocks rebuilt in one O(n) pass.
   */
  endBulk(): void {
    if (this.bulkFrom < 0) return;
    const added = this.columns.count - this.bulkFrom;
    const fresh = new Uint32Array(added);
    for (let i = 0; i < added; i++) fresh[i] = this.bulkFrom + i;
    this.bulkFrom = -1;
    if (!isSorted(fresh, this.columns)) fresh.sort((a, b) => this.columns.compare(a, b));
    const { order, columns } = this;
    const first = fresh[0];
    const newest = first === undefined || order.length === 0 || columns.compare(order.at(order.length - 1), first) < 0;
    const stale = this.listsStale;
    this.listsStale = false;
    if (newest && !stale) {
      this.appendNewest(fresh);
      return;
    }
    const merged = mergeSorted(order.items.subarray(0, order.length), fresh, columns);
    order.assign(merged, merged.length);
    this.rebuildLists();
    this.blocks.refreshFrom(0);
  }

  /**
   * The usual import: everything new is newer than what is stored, so it goes at the end of every list, O(batch);
   * a batch that is large next to the store (the first load) rebuilds the lists in one counted pass instead.
   */
  private appendNewest(fresh: Uint32Array): void {
    const from = this.order.length;
    this.order.assign(fresh, fresh.length, from);
    if (fresh.length * 4 > this.order.length) {
      this.rebuildLists();
    } else {
      const c = this.columns;
      for (const slot of fresh) {
        listAt(this.byType, c.type[slot] ?? 0, c).push(slot);
        listAt(this.byEntity, c.entity[slot] ?? 0, c).push(slot);
      }
    }
    this.blocks.refreshFrom(from);
  }

  private replace(slot: number, next: { end: number; type: number; entity: number; offset: number; length: number }): void {
    const c = this.columns;
    const linked = this.bulkFrom < 0;
    if (linked && c.type[slot] !== next.type) {
      this.byType[c.type[slot] ?? 0]?.remove(slot);
      addSorted(listAt(this.byType, next.type, c), slot, c);
    }
    if (linked && c.entity[slot] !== next.entity) {
      this.byEntity[c.entity[slot] ?? 0]?.remove(slot);
      addSorted(listAt(this.byEntity, next.entity, c), slot, c);
    }
    const endChanged = c.end[slot] !== next.end;
    const moved = endChanged || c.type[slot] !== next.type || c.entity[slot] !== next.entity;
    if (!linked && slot < this.bulkFrom && moved) this.listsStale = true;
    c.end[slot] = next.end;
    c.type[slot] = next.type;
    c.entity[slot] = next.entity;
    c.offset[slot] = next.offset;
    c.length[slot] = next.length;
    if (linked && endChanged) this.blocks.refreshAt(this.order.positionOf(slot));
  }

  /** Links one new slot into the order, its lists and the blocks. Appending is O(1); an older start shifts. */
  private link(slot: number): void {
    const c = this.columns;
    const position = addSorted(this.order, slot, c);
    this.blocks.refreshFrom(position);
    addSorted(listAt(this.byType, c.type[slot] ?? 0, c), slot, c);
    addSorted(listAt(this.byEntity, c.entity[slot] ?? 0, c), slot, c);
  }

  private rebuildLists(): void {
    this.byType = buildLists(this.order, this.columns.type, this.types.size, this.columns);
    this.byEntity = buildLists(this.order, this.columns.entity, this.entities.size, this.columns);
  }
}

function listContents(lists: readonly (SlotList | undefined)[], size: number): Uint32Array[] {
  return Array.from({ length: size }, (_, code) => {
    const list = lists[code];
    return list ? list.items.subarray(0, list.length) : new Uint32Array(0);
  });
}

/** Lists over the given arrays, taken over without copying; a code with no events has no list, as buildLists leaves it. */
function adoptLists(contents: readonly Uint32Array[], columns: EventColumns): SlotList[] {
  const lists: SlotList[] = [];
  contents.forEach((items, code) => {
    if (items.length > 0) lists[code] = SlotList.over(columns, items);
  });
  return lists;
}

function listAt(lists: SlotList[], code: number, columns: EventColumns): SlotList {
  let list = lists[code];
  if (!list) {
    list = new SlotList(columns);
    lists[code] = list;
  }
  return list;
}

function addSorted(list: SlotList, slot: number, columns: EventColumns): number {
  if (list.length === 0 || columns.compare(list.at(list.length - 1), slot) < 0) {
    list.push(slot);
    return list.length - 1;
  }
  return list.insert(slot);
}

/**
 * Every list comes out sorted without a sort: counted, then filled in order. Reads the arrays directly (a restart
 * over a million events runs this on the way to listening).
 */
function buildLists(order: SlotList, codes: Uint32Array, size: number, columns: EventColumns): SlotList[] {
  const slots = order.items;
  const n = order.length;
  const counts = new Uint32Array(size);
  for (let p = 0; p < n; p++) {
    const code = codes[slots[p] ?? 0] ?? 0;
    counts[code] = (counts[code] ?? 0) + 1;
  }
  const lists: SlotList[] = [];
  const fills: Uint32Array[] = [];
  for (let code = 0; code < size; code++) {
    const count = counts[code] ?? 0;
    if (count === 0) continue;
    const list = new SlotList(columns, count + (count >>> 3) + 4);
    list.length = count;
    lists[code] = list;
    fills[code] = list.items;
  }
  const next = new Uint32Array(size);
  for (let p = 0; p < n; p++) {
    const slot = slots[p] ?? 0;
    const code = codes[slot] ?? 0;
    const items = fills[code];
    const at = next[code] ?? 0;
    if (items) items[at] = slot;
    next[code] = at + 1;
  }
  return lists;
}

function isSorted(slots: Uint32Array, columns: EventColumns): boolean {
  for (let i = 1; i < slots.length; i++) if (columns.compare(slots[i - 1] ?? 0, slots[i] ?? 0) > 0) return false;
  return true;
}

function mergeSorted(a: Uint32Array, b: Uint32Array, columns: EventColumns): Uint32Array {
  if (a.length === 0) return b;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    out[k++] = columns.compare(a[i] ?? 0, b[j] ?? 0) <= 0 ? (a[i++] ?? 0) : (b[j++] ?? 0);
  }
  while (i < a.length) out[k++] = a[i++] ?? 0;
  while (j < b.length) out[k++] = b[j++] ?? 0;
  return out;
}
