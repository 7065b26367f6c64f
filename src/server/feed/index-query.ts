import { BLOCK_SHIFT } from './end-blocks.js';
import type { EventIndex } from './event-index.js';
import type { SlotList } from './slot-list.js';

/**
 * A feed query in index terms. An event matches when its start or its end lies in [from, to] (an open event has no
 * end) and it passes the filters. `undefined` filters match everything.
 */
export interface IndexFilter {
  readonly from: number;
  readonly to: number;
  readonly eventType?: string | undefined;
  readonly entityId?: string | undefined;
}

/** A position in feed order: the key of the last event already returned. */
export interface FeedKey {
  readonly start: number;
  readonly hi: number;
  readonly lo: number;
}

export interface PageRequest {
  readonly filter: IndexFilter;
  /** Continue strictly after this key (newest-first order); absent on the first page. */
  readonly after?: FeedKey | undefined;
  /** Only slots below this count existed at the first request; later events are left out of the pages. */
  readonly watermark: number;
  readonly limit: number;
  readonly countTotal: boolean;
}

export interface IndexPage {
  readonly slots: number[];
  /** The first event of the next page, if there is one. */
  readonly next: number | undefined;
  readonly total: number | undefined;
}

interface Plan {
  readonly list: SlotList;
  readonly typeCode: number | undefined;
  readonly entityCode: number | undefined;
}

/**
 * Keyset paging over the index. Feed order puts every event that started in [from, to] (part A, a contiguous
 * range of a sorted list found by binary search) before every event that started earlier and ended in the window
 * (part B, found through the end-time block maxima). A page is therefore O(log n + page size + skipped blocks),
 * never a filter-and-sort of everything.
 */
export function queryIndex(index: EventIndex, request: PageRequest): IndexPage {
  const plan = planQuery(index, request.filter);
  if (!plan) return { slots: [], next: undefined, total: request.countTotal ? 0 : undefined };
  const want = request.limit + 1;
  const found: number[] = [];
  collectStarted(index, plan, request, want, found);
  if (found.length < want) collectEnded(index, plan, request, want, found);
  const next = found.length > request.limit ? found[request.limit] : undefined;
  const total = request.countTotal ? countAll(index, plan, request.filter) : undefined;
  return { slots: found.slice(0, request.limit), next, total };
}

/** Picks the shortest list that covers the filters; undefined when a filter names something never stored. */
function planQuery(index: EventIndex, filter: IndexFilter): Plan | undefined {
  const typeCode = filter.eventType === undefined ? undefined : index.types.find(filter.eventType);
  const entityCode = filter.entityId === undefined ? undefined : index.entities.find(filter.entityId);
  if ((filter.eventType !== undefined && typeCode === undefined) || (filter.entityId !== undefined && entityCode === undefined)) {
    return undefined;
  }
  const byType = typeCode === undefined ? undefined : index.typeList(typeCode);
  const byEntity = entityCode === undefined ? undefined : index.entityList(entityCode);
  if ((typeCode !== undefined && !byType) || (entityCode !== undefined && !byEntity)) return undefined;
  let list = index.order;
  if (byType && (!byEntity || byType.length <= byEntity.length)) list = byType;
  else if (byEntity) list = byEntity;
  return { list, typeCode, entityCode };
}

function passes(index: EventIndex, plan: Plan, slot: number): boolean {
  const c = index.columns;
  return (plan.typeCode === undefined || c.type[slot] === plan.typeCode) &&
    (plan.entityCode === undefined || c.entity[slot] === plan.entityCode);
}

function startedRange(list: SlotList, filter: IndexFilter, after: FeedKey | undefined): [number, number] {
  let high = list.firstAfter(filter.to);
  if (after) high = Math.min(high, list.lowerBound(after.start, after.hi, after.lo));
  return [list.firstAtOrAfter(filter.from), high];
}

/** Part A: events that started in the window, newest first. */
function collectStarted(index: EventIndex, plan: Plan, request: PageRequest, want: number, found: number[]): void {
  const [low, high] = startedRange(plan.list, request.filter, request.after);
  for (let p = high - 1; p >= low && found.length < want; p--) {
    const slot = plan.list.at(p);
    if (slot < request.watermark && passes(index, plan, slot)) found.push(slot);
  }
}

/** Part B: events that started before the window and ended inside it, newest start first. */
function collectEnded(index: EventIndex, plan: Plan, request: PageRequest, want: number, found: number[]): void {
  const { order } = index;
  let p = order.firstAtOrAfter(request.filter.from);
  const { after } = request;
  if (after) p = Math.min(p, order.lowerBound(after.start, after.hi, after.lo));
  visitEnded(index, plan, request.filter, p - 1, (slot) => {
    if (slot < request.watermark) found.push(slot);
    return found.length < want;
  });
}

/**
 * Walks the global order downwards from `position`, calling `visit` for each matching part-B event until it returns
 * false. Blocks whose latest end is before `from` are skipped without looking at their events.
 */
function visitEnded(index: EventIndex, plan: Plan, filter: IndexFilter, position: number, visit: (slot: number) => boolean): void {
  const { order, blocks } = index;
  const { end } = index.columns;
  for (let p = position; p >= 0; p--) {
    if (blocks.maxEnd(p >>> BLOCK_SHIFT) < filter.from) {
      p = ((p >>> BLOCK_SHIFT) << BLOCK_SHIFT);
      continue;
    }
    const slot = order.at(p);
    const e = end[slot] ?? Number.NEGATIVE_INFINITY;
    if (e >= filter.from && e <= filter.to && passes(index, plan, slot) && !visit(slot)) return;
  }
}

function countAll(index: EventIndex, plan: Plan, filter: IndexFilter): number {
  const [low, high] = startedRange(plan.list, filter, undefined);
  let total = 0;
  if (plan.list === index.order || plan.typeCode === undefined || plan.entityCode === undefined) {
    total = Math.max(0, high - low);
  } else {
    for (let p = low; p < high; p++) if (passes(index, plan, plan.list.at(p))) total++;
  }
  visitEnded(index, plan, filter, index.order.firstAtOrAfter(filter.from) - 1, () => {
    total++;
    return true;
  });
  return total;
}
