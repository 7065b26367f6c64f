import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEvent, type EncodedEvent } from '../../../../src/server/feed/event-record.js';
import type { EventStore } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { readFeedPage } from '../../../../src/server/feed/feed-page-write.js';
import { parseFeedQuery } from '../../../../src/server/feed/feed-query.js';

/** A small world so random queries hit ties, boundaries, filters and empty results often. */
const T0 = 1_700_000_000_000;
const SPAN = 400;
const NOW = T0 + SPAN;
const TYPES = ['CPU_SATURATED', 'SLOW_DISK', 'CUSTOM_INFO'] as const;
const ENTITIES = ['HOST-1', 'HOST-2', 'SERVICE-3'] as const;
const ENV = 'local';

interface ModelEvent {
  eventId: bigint;
  startTime: number;
  endTime: number | undefined;
  eventType: string;
  entityId: string;
}

const idOf = (e: ModelEvent): string => `${e.eventId}_${e.startTime}`;

const eventIdArb = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n, 1n, -4314211936928920170n),
  fc.bigInt({ min: -3n, max: 3n }),
);
const eventArb: fc.Arbitrary<ModelEvent> = fc.record({
  eventId: eventIdArb,
  startTime: fc.integer({ min: T0 - 100, max: NOW }),
  duration: fc.option(fc.integer({ min: 0, max: 200 }), { nil: undefined }),
  eventType: fc.constantFrom(...TYPES),
  entityId: fc.constantFrom(...ENTITIES),
}).map(({ duration, ...rest }) => ({ ...rest, endTime: duration === undefined ? undefined : rest.startTime + duration }));

/** Events plus later versions of some of them (same id; another end, type or entity), as imports and closings make. */
const historyArb = fc
  .tuple(fc.array(eventArb, { maxLength: 300, size: 'max' }), fc.array(fc.tuple(fc.nat(), eventArb), { maxLength: 40, size: 'max' }))
  .map(([events, revisions]) => [
    ...events,
    ...revisions.flatMap(([pick, revision]) => {
      const target = events[pick % Math.max(1, events.length)];
      if (!target) return [];
      const duration = revision.endTime === undefined ? undefined : revision.endTime - revision.startTime;
      const endTime = duration === undefined ? undefined : target.startTime + duration;
      return [{ ...revision, eventId: target.eventId, startTime: target.startTime, endTime }];
    }),
  ]);

const queryArb = fc.record({
  from: fc.option(fc.integer({ min: T0 - 150, max: NOW }), { nil: undefined }),
  width: fc.integer({ min: 0, max: SPAN + 200 }),
  /** Put the window's ends on event times half the time: the boundaries are where paging goes wrong. */
  anchors: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.boolean(), fc.boolean()), { nil: undefined }),
  eventType: fc.option(fc.constantFrom(...TYPES, 'HIGH_LATENCY'), { nil: undefined }),
  entityId: fc.option(fc.constantFrom(...ENTITIES, 'HOST-404'), { nil: undefined }),
});
type Query = typeof queryArb extends fc.Arbitrary<infer Q> ? Q : never;

function encode(e: ModelEvent): EncodedEvent {
  const result = encodeEvent({
    id: idOf(e),
    startTime: e.startTime,
    ...(e.endTime === undefined ? {} : { endTime: e.endTime }),
    eventType: e.eventType,
    entityId: e.entityId,
    eventStatus: e.endTime === undefined ? 'OPEN' : 'CLOSED',
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

function queryString(q: Query, history: readonly ModelEvent[]): URLSearchParams {
  const params = new URLSearchParams();
  if (q.anchors && history.length > 0) {
    const [a, b, aEnd, bEnd] = q.anchors;
    const timeOf = (i: number, end: boolean): number => {
      const e = history[i % history.length] as ModelEvent;
      return end ? (e.endTime ?? e.startTime) : e.startTime;
    };
    const [x, y] = [timeOf(a, aEnd), timeOf(b, bEnd)];
    params.set('from', String(Math.min(x, y)));
    params.set('to', String(Math.max(x, y)));
  } else if (q.from !== undefined) {
    params.set('from', String(q.from));
    params.set('to', String(q.from + q.width));
  } else {
    params.set('relativeTime', '5mins');
  }
  if (q.eventType) params.set('eventType', q.eventType);
  if (q.entityId) params.set('entityId', q.entityId);
  return params;
}

/** The brute-force answer: last version per id, filtered, sorted newest first with ties by event id. */
function modelAnswer(history: readonly ModelEvent[], from: number, to: number, q: Query): ModelEvent[] {
  const current = new Map<string, ModelEvent>();
  for (const e of history) current.set(idOf(e), e);
  const inWindow = (t: number | undefined): boolean => t !== undefined && t >= from && t <= to;
  return [...current.values()]
    .filter((e) => (inWindow(e.startTime) || inWindow(e.endTime)) && (!q.eventType || e.eventType === q.eventType) && (!q.entityId || e.entityId === q.entityId))
    .sort((a, b) => b.startTime - a.startTime || (b.eventId > a.eventId ? 1 : b.eventId < a.eventId ? -1 : 0));
}

interface Page {
  ids: string[];
  total: number;
  from: number;
  to: number;
  nextCursor: string | null;
  nextEventId: string | null;
  nextEventStartTms: number | null;
}

function parsePage(body: Buffer): Page {
  const text = body.toString('utf8');
  const json = JSON.parse(text) as { events: Array<{ id: string }>; totalEventCount: number; from: number; to: number; nextCursor: string | null; nextEventStartTms: number | null };
  // Read as digits from the text: JSON.parse would round a 64-bit id.
  const nextEventId = /"nextEventId":(null|-?[0-9]+)/.exec(text)?.[1] ?? 'missing';
  return {
    ids: json.events.map((e) => e.id),
    total: json.totalEventCount,
    from: json.from,
    to: json.to,
    nextCursor: json.nextCursor,
    nextEventId: nextEventId === 'null' ? null : nextEventId,
    nextEventStartTms: json.nextEventStartTms,
  };
}

async function fetchPage(store: EventStore, params: URLSearchParams, pageSize: number): Promise<Page> {
  const request = parseFeedQuery(params, NOW, store.cursorKey, ENV);
  return parsePage((await readFeedPage(store, request, { cursorKey: store.cursorKey, env: ENV, pageSize })).bytes);
}

describe('feed paging against a brute-force model', () => {
  let root: string;
  let run = 0;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'dashcd-paging-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('the pages of any query are the model answer, in order, without repeats, with right totals and next fields', async () => {
    await fc.assert(
      fc.asyncProperty(historyArb, queryArb, fc.constantFrom(1, 3, 7, 150), fc.array(fc.nat(), { maxLength: 4 }), fc.constantFrom(1, 8, 256), fc.boolean(), async (history, q, pageSize, cuts, bulkThreshold, reopen) => {
        const dir = join(root, `run-${run++}`);
        let store = await openEventStore({ dir, bulkThreshold });
        try {
          // Several puts: batches over the threshold are linked in one pass (appended or merged), the others one by one.
          const bounds = [0, ...cuts.map((cut) => cut % (history.length + 1)).sort((a, b) => a - b), history.length];
          for (let i = 1; i < bounds.length; i++) await store.put(history.slice(bounds[i - 1], bounds[i]).map(encode));
          if (reopen) {
            // The index then comes back from the snapshot written on close.
            await store.close();
            store = await openEventStore({ dir });
          }
          const first = await fetchPage(store, queryString(q, history), pageSize);
          const expected = modelAnswer(history, first.from, first.to, q);
          const seen: string[] = [];
          let page = first;
          for (;;) {
            expect(page.ids.length).toBeLessThanOrEqual(pageSize);
            expect(page.total).toBe(expected.length);
            expect([page.from, page.to]).toEqual([first.from, first.to]);
            seen.push(...page.ids);
            const next = expected[seen.length];
            expect(page.nextEventId).toBe(next ? String(next.eventId) : null);
            expect(page.nextEventStartTms).toBe(next ? next.startTime : null);
            if (page.nextCursor === null) break;
            page = await fetchPage(store, new URLSearchParams({ cursor: page.nextCursor }), pageSize);
          }
          expect(seen).toEqual(expected.map(idOf));
        } finally {
          await store.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('events arriving while a client pages are neither skipped nor repeated, and new ones stay out', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(eventArb, { minLength: 1, maxLength: 120, size: 'max' }),
        queryArb,
        fc.array(fc.tuple(fc.nat(), fc.array(eventArb, { maxLength: 12, size: 'max' }), fc.boolean()), { maxLength: 8, size: 'max' }),
        async (history, q, arrivals) => {
          const store = await openEventStore({ dir: join(root, `run-${run++}`) });
          try {
            await store.put(history.map(encode));
            let page = await fetchPage(store, queryString(q, history), 5);
            const expected = modelAnswer(history, page.from, page.to, q).map(idOf);
            const original = new Set(history.map(idOf));
            const seen = [...page.ids];
            for (const [pick, fresh, closeOne] of arrivals) {
              if (page.nextCursor === null) break;
              // New events anywhere in time, plus (sometimes) a closing record for an earlier open event.
              const batch = fresh.filter((e) => !original.has(idOf(e)));
              // The current versions (the last per id) still open. A closing record only adds an end, so it never
              // takes an event out of the query; `{ ...v, endTime }` of a superseded open version v would revise the
              // event back to v's type and entity, which rightly can.
              const open = [...new Map(history.map((e) => [idOf(e), e])).values()].filter((e) => e.endTime === undefined);
              const target = open[pick % Math.max(1, open.length)];
              if (closeOne && target) batch.push({ ...target, endTime: target.startTime + 1 });
              await store.put(batch.map(encode));
              page = await fetchPage(store, new URLSearchParams({ cursor: page.nextCursor }), 5);
              expect(page.total).toBe(expected.length);
              seen.push(...page.ids);
            }
            while (page.nextCursor !== null) {
              page = await fetchPage(store, new URLSearchParams({ cursor: page.nextCursor }), 5);
              seen.push(...page.ids);
            }
            expect(new Set(seen).size).toBe(seen.length);
            for (const id of seen) expect(original.has(id)).toBe(true);
            expect(seen.filter((id) => expected.includes(id))).toEqual(expected);
          } finally {
            await store.close();
          }
        },
      ),
      // Found once in ~25,000 runs (seed -1907216640, shrunk): event x open as CPU_SATURATED, then revised to a
      // closed SLOW_DISK; the client pages SLOW_DISK events while x gets a closing record.
      { numRuns: 40, examples: [[closingCounterexample(), { from: undefined, width: 0, anchors: undefined, eventType: 'SLOW_DISK', entityId: undefined }, [[0, [], true]]]] },
    );
  });
});

function closingCounterexample(): ModelEvent[] {
  const x = -(2n ** 63n);
  const event = (eventId: bigint, startTime: number, eventType: string, endTime: number | undefined): ModelEvent => ({ eventId, startTime, endTime, eventType, entityId: 'HOST-1' });
  return [
    event(x, T0 - 100, 'CPU_SATURATED', undefined),
    event(x, T0 - 100, 'SLOW_DISK', T0 - 100),
    event(0n, T0 - 100, 'SLOW_DISK', T0 - 100),
    event(0n, T0 - 98, 'SLOW_DISK', T0 - 98),
    event(x, T0 - 99, 'SLOW_DISK', undefined),
    event(0n, T0 - 99, 'SLOW_DISK', T0 - 99),
    event(x, T0 - 98, 'SLOW_DISK', undefined),
  ];
}
