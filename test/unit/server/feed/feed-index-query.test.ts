import { describe, expect, it } from 'vitest';
import { EventIndex } from '../../../../src/server/feed/event-index.js';
import { queryIndex, type FeedKey, type IndexFilter, type PageRequest } from '../../../../src/server/feed/index-query.js';

/**
 * Keyset paging over the in-memory index (issue 16), on one hand-built index whose expected pages are worked out
 * below by hand. Every event has hi = 0, and its `lo` word doubles as its label in the expectations.
 *
 * The window is [1000, 2000]. An event matches when its start or its end lies in the window.
 *
 * Old events (started before the window), positions 0..95 of the global order, i.e. three end-time blocks of 32:
 * the event at position p starts at 100 + p, has lo 100 + p, ends at 101 + p, type C, entity e3 — except
 *
 *   label  start  end    type entity  why
 *   100    100    1000   A    e1      ends exactly at `from`; position 0; added last (slot 101)
 *   105    105    2000   A    e1      ends exactly at `to`
 *   107    107    2001   A    e1      spans the window (ends after `to`): no match
 *   109    109     999   A    e1      ends just before `from`: no match, in a block that is not skipped
 *   112    112    1500   B    e1
 *   131    131    1999   B    e2      last position of block 0, just below the skipped block 1
 *   140    140    open   A    e1      open: never matches by its end
 *   170    170    1000   A    e2      the only end in block 2 that reaches the window: block 2's latest end == `from`
 *
 * Block 0 (positions 0..31) has latest end 2001; block 1 (32..63) latest end 164 (< from: skipped whole);
 * block 2 (64..95) latest end 1000.
 *
 * Events that started in or after the window (added after the old ones except label 100; slots 95..100):
 *
 *   label  start  end    type entity  slot
 *   1      1000   1500   A    e1      95    starts at `from` and also ends in the window: listed once
 *   2      1500   open   A    e2      96
 *   3      1500   1600   B    e1      97    same start as 2: the higher id comes first
 *   4      2000   open   A    e1      98    starts at `to`
 *   5      2001   2002   A    e1      99    starts after `to`: no match
 *   6      1200   open   B    e2      100
 *
 * Feed order (newest start first, ties by id descending): part A (started in the window) 4, 3, 2, 6, 1, then
 * part B (started earlier, ended in the window) 170, 131, 112, 105, 100 — ten events.
 */
const FROM = 1000;
const TO = 2000;

interface Row {
  readonly lo: number;
  readonly start: number;
  readonly end: number | undefined;
  readonly type: string;
  readonly entity: string | undefined;
}

const SPECIAL: Readonly<Record<number, Omit<Row, 'lo' | 'start'>>> = {
  0: { end: 1000, type: 'A', entity: 'e1' },
  5: { end: 2000, type: 'A', entity: 'e1' },
  7: { end: 2001, type: 'A', entity: 'e1' },
  9: { end: 999, type: 'A', entity: 'e1' },
  12: { end: 1500, type: 'B', entity: 'e1' },
  31: { end: 1999, type: 'B', entity: 'e2' },
  40: { end: undefined, type: 'A', entity: 'e1' },
  70: { end: 1000, type: 'A', entity: 'e2' },
};

function oldEvent(p: number): Row {
  return { lo: 100 + p, start: 100 + p, ...(SPECIAL[p] ?? { end: 101 + p, type: 'C', entity: 'e3' }) };
}

const RECENT: readonly Row[] = [
  { lo: 1, start: 1000, end: 1500, type: 'A', entity: 'e1' },
  { lo: 2, start: 1500, end: undefined, type: 'A', entity: 'e2' },
  { lo: 3, start: 1500, end: 1600, type: 'B', entity: 'e1' },
  { lo: 4, start: 2000, end: undefined, type: 'A', entity: 'e1' },
  { lo: 5, start: 2001, end: 2002, type: 'A', entity: 'e1' },
  { lo: 6, start: 1200, end: undefined, type: 'B', entity: 'e2' },
];

function add(index: EventIndex, row: Row): void {
  index.upsert({ hi: 0, lo: row.lo, startTime: row.start, endTime: row.end, eventType: row.type, entityId: row.entity }, 0, 1);
}

function buildIndex(): EventIndex {
  const index = new EventIndex();
  for (let p = 1; p < 96; p++) add(index, oldEvent(p));
  for (const row of RECENT) add(index, row);
  add(index, oldEvent(0));
  return index;
}

const INDEX = buildIndex();

function key(start: number, lo: number): FeedKey {
  return { start, hi: 0, lo };
}

interface Page {
  readonly labels: number[];
  readonly next: number | undefined;
  readonly total: number | undefined;
}

type Request = Partial<Omit<PageRequest, 'filter'>> & { readonly filter?: Partial<IndexFilter> };

/** Runs a query over the window [FROM, TO] (unless the filter says otherwise) with every slot below the watermark. */
function page(request: Request, index = INDEX): Page {
  const result = queryIndex(index, {
    watermark: 102,
    limit: 50,
    countTotal: false,
    ...request,
    filter: { from: FROM, to: TO, ...request.filter },
  });
  const label = (slot: number): number => index.columns.lo[slot] ?? -1;
  return {
    labels: result.slots.map(label),
    next: result.next === undefined ? undefined : label(result.next),
    total: result.total,
  };
}

describe('index query: which events a window matches', () => {
  it('builds the index the table above describes', () => {
    expect(INDEX.size).toBe(102);
    expect(INDEX.order.length).toBe(102);
    expect([0, 31, 32, 63, 64, 95, 96, 101].map((p) => INDEX.columns.lo[INDEX.order.at(p)])).toEqual([100, 131, 132, 163, 164, 195, 1, 5]);
    expect([0, 1, 2].map((b) => INDEX.blocks.maxEnd(b))).toEqual([2001, 164, 1000]);
  });

  it('lists part A newest first, then part B by start, with both ends of the window inclusive', () => {
    expect(page({ countTotal: true })).toEqual({ labels: [4, 3, 2, 6, 1, 170, 131, 112, 105, 100], next: undefined, total: 10 });
  });

  it('leaves out the total unless asked', () => {
    expect(page({}).total).toBeUndefined();
  });

  it('finds part B events from the first position of the order on, after a skipped block and at its edge', () => {
    // [200, 1000]: event 1 starts at `to`; 170 and 100 end at `to`, 109 at 999; block 1 (latest end 164) is skipped.
    expect(page({ filter: { from: 200, to: 1000 }, countTotal: true })).toEqual({ labels: [1, 170, 109, 100], next: undefined, total: 4 });
    // [1999, 1999]: no starts; blocks 2 and 1 both end before it, so the walk skips to position 31.
    expect(page({ filter: { from: 1999, to: 1999 }, countTotal: true })).toEqual({ labels: [131], next: undefined, total: 1 });
  });
});

describe('index query: filters', () => {
  it('filters by event type', () => {
    expect(page({ filter: { eventType: 'A' }, countTotal: true })).toEqual({ labels: [4, 2, 1, 170, 105, 100], next: undefined, total: 6 });
    expect(page({ filter: { eventType: 'B' }, countTotal: true })).toEqual({ labels: [3, 6, 131, 112], next: undefined, total: 4 });
  });

  it('filters by entity', () => {
    expect(page({ filter: { entityId: 'e1' }, countTotal: true })).toEqual({ labels: [4, 3, 1, 112, 105, 100], next: undefined, total: 6 });
    expect(page({ filter: { entityId: 'e2' }, countTotal: true })).toEqual({ labels: [2, 6, 170, 131], next: undefined, total: 4 });
  });

  it('filters by type and entity together, whichever posting list is shorter, and counts only the events that pass both', () => {
    // Type A and entity e1 have 10 events each; type B and entity e2 have 4 each.
    expect(page({ filter: { eventType: 'A', entityId: 'e1' }, countTotal: true })).toEqual({ labels: [4, 1, 105, 100], next: undefined, total: 4 });
    expect(page({ filter: { eventType: 'A', entityId: 'e2' }, countTotal: true })).toEqual({ labels: [2, 170], next: undefined, total: 2 });
    expect(page({ filter: { eventType: 'B', entityId: 'e1' }, countTotal: true })).toEqual({ labels: [3, 112], next: undefined, total: 2 });
    expect(page({ filter: { eventType: 'B', entityId: 'e2' }, countTotal: true })).toEqual({ labels: [6, 131], next: undefined, total: 2 });
  });

  it('matches nothing for a type or entity never stored, with a total of 0 when one is asked for', () => {
    const empty = { labels: [], next: undefined, total: 0 };
    expect(page({ filter: { eventType: 'NOPE' }, countTotal: true })).toEqual(empty);
    expect(page({ filter: { entityId: 'nope' }, countTotal: true })).toEqual(empty);
    expect(page({ filter: { eventType: 'A', entityId: 'nope' }, countTotal: true })).toEqual(empty);
    expect(page({ filter: { eventType: 'NOPE', entityId: 'e1' }, countTotal: true })).toEqual(empty);
    expect(page({ filter: { eventType: 'NOPE' } })).toEqual({ labels: [], next: undefined, total: undefined });
  });

  it('matches nothing for a type or entity that is known but has no events left', () => {
    // In a bulk load, event 7 is first stored as type Z / entity z and then replaced as type A / entity e1:
    // the names Z and z keep their codes, but no event has them.
    const index = new EventIndex();
    index.beginBulk();
    index.upsert({ hi: 0, lo: 7, startTime: 1100, endTime: undefined, eventType: 'Z', entityId: 'z' }, 0, 1);
    index.upsert({ hi: 0, lo: 8, startTime: 1300, endTime: undefined, eventType: 'A', entityId: 'e1' }, 0, 1);
    index.upsert({ hi: 0, lo: 7, startTime: 1100, endTime: undefined, eventType: 'A', entityId: 'e1' }, 0, 1);
    index.endBulk();
    expect(index.types.find('Z')).toBeDefined();
    expect(index.entities.find('z')).toBeDefined();
    const empty = { labels: [], next: undefined, total: 0 };
    expect(page({ filter: { eventType: 'Z' }, countTotal: true, watermark: 2 }, index)).toEqual(empty);
    expect(page({ filter: { entityId: 'z' }, countTotal: true, watermark: 2 }, index)).toEqual(empty);
    expect(page({ filter: { eventType: 'A' }, countTotal: true, watermark: 2 }, index)).toEqual({ labels: [8, 7], next: undefined, total: 2 });
  });
});

describe('index query: limits and paging', () => {
  it('cuts a page at the limit and names the first event of the next page', () => {
    expect(page({ limit: 1 })).toEqual({ labels: [4], next: 3, total: undefined });
    expect(page({ limit: 5 })).toEqual({ labels: [4, 3, 2, 6, 1], next: 170, total: undefined });
    expect(page({ limit: 6 })).toEqual({ labels: [4, 3, 2, 6, 1, 170], next: 131, total: undefined });
    expect(page({ limit: 9 })).toEqual({ labels: [4, 3, 2, 6, 1, 170, 131, 112, 105], next: 100, total: undefined });
    expect(page({ limit: 10 })).toEqual({ labels: [4, 3, 2, 6, 1, 170, 131, 112, 105, 100], next: undefined, total: undefined });
  });

  it('pages through both parts after a key, each event once', () => {
    expect(page({ limit: 3, countTotal: true })).toEqual({ labels: [4, 3, 2], next: 6, total: 10 });
    expect(page({ limit: 3, after: key(1500, 2) })).toEqual({ labels: [6, 1, 170], next: 131, total: undefined });
    expect(page({ limit: 3, after: key(170, 170) })).toEqual({ labels: [131, 112, 105], next: 100, total: undefined });
    expect(page({ limit: 3, after: key(105, 105) })).toEqual({ labels: [100], next: undefined, total: undefined });
  });

  it('pages through a filtered feed', () => {
    expect(page({ limit: 2, filter: { eventType: 'A' } })).toEqual({ labels: [4, 2], next: 1, total: undefined });
    expect(page({ limit: 2, filter: { eventType: 'A' }, after: key(1500, 2) })).toEqual({ labels: [1, 170], next: 105, total: undefined });
    expect(page({ limit: 2, filter: { eventType: 'A' }, after: key(170, 170) })).toEqual({ labels: [105, 100], next: undefined, total: undefined });
  });
});

describe('index query: snapshot watermark', () => {
  it('leaves out the events stored at or after the watermark slot, in both parts', () => {
    // Slot 101 is event 100 (part B), slot 100 is event 6 (part A), slots 95..100 are events 1..6.
    expect(page({ watermark: 101 }).labels).toEqual([4, 3, 2, 6, 1, 170, 131, 112, 105]);
    expect(page({ watermark: 100 }).labels).toEqual([4, 3, 2, 1, 170, 131, 112, 105]);
    expect(page({ watermark: 95 }).labels).toEqual([170, 131, 112, 105]);
  });

  it('fills a page past events above the watermark', () => {
    expect(page({ watermark: 100, limit: 4 })).toEqual({ labels: [4, 3, 2, 1], next: 170, total: undefined });
    expect(page({ watermark: 101, limit: 8 })).toEqual({ labels: [4, 3, 2, 6, 1, 170, 131, 112], next: 105, total: undefined });
  });
});
