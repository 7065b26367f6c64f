import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_LOG_FILE } from '../../../../src/server/feed/event-log.js';
import { encodeEvent, type EncodedEvent } from '../../../../src/server/feed/event-record.js';
import type { EventStore } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { INDEX_SNAPSHOT_FILE } from '../../../../src/server/feed/index-snapshot.js';
import { COLUMN_BYTES_PER_EVENT } from '../../../../src/server/feed/event-columns.js';
import { readFeedPage } from '../../../../src/server/feed/feed-page-write.js';
import { parseFeedQuery } from '../../../../src/server/feed/feed-query.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';
import { pageOf } from '../../../helpers/store-page.js';

const T0 = 1_700_000_000_000;
const TYPES = ['CPU_SATURATED', 'SLOW_DISK', 'CUSTOM_INFO'];

function event(n: number, extra: Record<string, unknown> = {}): EncodedEvent {
  const result = encodeEvent({
    id: `${BigInt(n) * 7919n - 4314211936928920170n}_${T0 + n * 10}`,
    startTime: T0 + n * 10,
    endTime: T0 + n * 10 + (n % 5) * 100,
    eventType: TYPES[n % 3],
    entityId: `HOST-${n % 4}`,
    ...extra,
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

/** Every page of a query, as the feed answers it (texts, totals, cursors and next fields). */
async function allPages(store: EventStore, query: string): Promise<string[]> {
  const bodies: string[] = [];
  let params = new URLSearchParams(query);
  for (;;) {
    const request = parseFeedQuery(params, T0 + 10_000, store.cursorKey, 'local');
    const body = (await readFeedPage(store, request, { cursorKey: store.cursorKey, env: 'local', pageSize: 7 })).bytes.toString();
    bodies.push(body);
    const next = (JSON.parse(body) as { nextCursor: string | null }).nextCursor;
    if (next === null) return bodies;
    params = new URLSearchParams({ cursor: next });
  }
}

const QUERIES = [`from=${T0 + 150}&to=${T0 + 600}`, `from=${T0}&to=${T0 + 900}&eventType=SLOW_DISK`, `from=${T0 + 200}&to=${T0 + 800}&entityId=HOST-1`];

describe('index snapshot', () => {
  let dir: string;
  tempDirPerTest('dashcd-events-snapshot-', (created) => (dir = created));

  it('is written on close and gives the same answers after a restart without scanning the log', async () => {
    const first = await openEventStore({ dir });
    await first.put(Array.from({ length: 60 }, (_, n) => event(n)));
    await first.put([event(7, { endTime: T0 + 70 + 5000, eventType: 'HIGH_LATENCY' }), event(61)]);
    const before = await Promise.all(QUERIES.map((q) => allPages(first, q)));
    await first.close();
    expect((await stat(join(dir, INDEX_SNAPSHOT_FILE))).size).toBeGreaterThan(0);

    const { lines, log } = captureLog();
    const second = await openEventStore({ dir, log });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event store opened', scannedLines: 0, events: 61 }));
    expect(await Promise.all(QUERIES.map((q) => allPages(second, q)))).toEqual(before);
    await second.put([event(62)]);
    expect(second.size).toBe(62);
    await second.close();
  });

  it('covers only what it saw: events appended after it (a crash before close) are scanned and indexed', async () => {
    const first = await openEventStore({ dir });
    await first.put(Array.from({ length: 20 }, (_, n) => event(n)));
    await first.close();
    const crashed = await openEventStore({ dir });
    await crashed.put([event(20), event(3, { eventType: 'HIGH_LATENCY' })]);
    const expected = await Promise.all(QUERIES.map((q) => allPages(crashed, q)));
    // No close: the snapshot on disk still covers only the first 20 lines.

    const { lines, log } = captureLog();
    const reopened = await openEventStore({ dir, log });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'event store opened', scannedLines: 2 }));
    expect(await Promise.all(QUERIES.map((q) => allPages(reopened, q)))).toEqual(expected);
    await reopened.close();
    await crashed.close();
  });

  it('is ignored (and the log scanned) when it is damaged or the log under it was replaced', async () => {
    const first = await openEventStore({ dir });
    await first.put(Array.from({ length: 20 }, (_, n) => event(n)));
    await first.close();
    const snapshot = await readFile(join(dir, INDEX_SNAPSHOT_FILE));
    await writeFile(join(dir, INDEX_SNAPSHOT_FILE), snapshot.subarray(0, snapshot.length - 3));
    const damaged = captureLog();
    const second = await openEventStore({ dir, log: damaged.log });
    expect(damaged.lines).toContainEqual(expect.objectContaining({ msg: 'ignored the index snapshot: scanning the whole log', reason: 'wrong length' }));
    expect(second.size).toBe(20);
    await second.close();

    const log = await readFile(join(dir, EVENT_LOG_FILE), 'utf8');
    const rewritten = log.replace(`"eventType":"SLOW_DISK"`, `"eventType":"SLOW_DISX"`);
    await writeFile(join(dir, EVENT_LOG_FILE), rewritten);
    const replaced = captureLog();
    const third = await openEventStore({ dir, log: replaced.log });
    expect(replaced.lines).toContainEqual(expect.objectContaining({ reason: 'the log does not match the snapshot' }));
    expect((await pageOf(third, { filter: { from: 0, to: 2 * T0, eventType: 'SLOW_DISX' }, watermark: 20, limit: 50, countTotal: true })).total).toBe(1);
    await third.close();
  });

  it('keeps the posting lists: a restarted store answers by type and entity as one that never stopped, writes included', async () => {
    const writes: EncodedEvent[][] = [Array.from({ length: 40 }, (_, n) => event(n)), [event(5, { eventType: 'HIGH_LATENCY', entityId: 'HOST-9' }), event(40), event(41)]];
    const restarted = await openEventStore({ dir });
    await restarted.put(writes[0] ?? []);
    await restarted.close();
    const reopened = await openEventStore({ dir });
    // Lists taken from the snapshot grow, lose and gain events like built ones.
    await reopened.put(writes[1] ?? []);
    const after = await Promise.all(QUERIES.map((q) => allPages(reopened, q)));
    await reopened.close();

    const other = join(dir, 'never-stopped');
    const steady = await openEventStore({ dir: other });
    for (const batch of writes) await steady.put(batch);
    // Cursors are signed with each store's own key: the pages are compared without them.
    const unsigned = (pages: string[][]): string[][] => pages.map((bodies) => bodies.map((body) => body.replace(/"nextCursor":"[^"]*"/, '"nextCursor":"…"')));
    expect(unsigned(after)).toEqual(unsigned(await Promise.all(QUERIES.map((q) => allPages(steady, q)))));
    await steady.close();
  });

  it('is ignored when written in another format version or when its lists do not add up to its events', async () => {
    const first = await openEventStore({ dir });
    await first.put(Array.from({ length: 20 }, (_, n) => event(n)));
    await first.close();
    const file = join(dir, INDEX_SNAPSHOT_FILE);
    /** Opens the store over the edited snapshot: it must be ignored for `reason`, every event scanned back. */
    const expectIgnored = async (reason: string): Promise<void> => {
      const { lines, log } = captureLog();
      const store = await openEventStore({ dir, log });
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'ignored the index snapshot: scanning the whole log', reason }));
      expect(store.size).toBe(20);
      await store.close();
    };
    const snapshot = await readFile(file);
    const newline = snapshot.indexOf(0x0a);
    const header = JSON.parse(snapshot.toString('utf8', 0, newline)) as { version: number; count: number };
    const rewritten = async (edit: (h: typeof header) => object): Promise<void> =>
      writeFile(file, Buffer.concat([Buffer.from(JSON.stringify(edit({ ...header }))), snapshot.subarray(newline)]));

    await rewritten((h) => ({ ...h, version: 1 }));
    await expectIgnored('unreadable header');

    // A count no file of this length could hold is refused before any array is made for it.
    await rewritten((h) => ({ ...h, count: 2 ** 40 }));
    await expectIgnored('sections that do not add up to its length');

    // Sizes that add up, but the first type list's length one more than it holds: the lists no longer cover the events.
    const withHeader = await readFile(file);
    const bodyStart = withHeader.indexOf(0x0a) + 1;
    const fixed = JSON.parse(withHeader.toString('utf8', 0, bodyStart - 1)) as { count: number; idTableSize: number };
    const typeLengths = bodyStart + fixed.count * (COLUMN_BYTES_PER_EVENT + 4) + fixed.idTableSize * 4; // after the columns, the order and the ids
    withHeader.writeUInt32LE(withHeader.readUInt32LE(typeLengths) + 1, typeLengths);
    await writeFile(file, withHeader);
    await expectIgnored('posting lists that do not add up to the events');

    // Lengths that add up, but a slot past the events (it would read as an empty event).
    const fresh = await readFile(file);
    const start = fresh.indexOf(0x0a) + 1;
    const meta = JSON.parse(fresh.toString('utf8', 0, start - 1)) as { count: number; idTableSize: number; types: string[] };
    const firstTypeSlot = start + meta.count * (COLUMN_BYTES_PER_EVENT + 4) + meta.idTableSize * 4 + (meta.types.length + 1) * 4;
    fresh.writeUInt32LE(meta.count, firstTypeSlot);
    await writeFile(file, fresh);
    await expectIgnored('posting lists that do not add up to the events');

    // A name listed twice (same length, so every size still adds up): codes would shift.
    const again = await readFile(file);
    const cut = again.indexOf(0x0a);
    const named = JSON.parse(again.toString('utf8', 0, cut)) as { entities: string[] };
    const [hostA = '', hostB = ''] = named.entities;
    expect(hostA.length).toBe(hostB.length);
    await writeFile(file, Buffer.concat([Buffer.from(JSON.stringify({ ...named, entities: [hostA, hostA, ...named.entities.slice(2)] })), again.subarray(cut)]));
    await expectIgnored('a name listed twice');
  });
});
