import { describe, expect, it } from 'vitest';
import { encodeEvent, type EncodedEvent } from '../../../../src/server/feed/event-record.js';
import type { EventStore, PageBody } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import { readFeedPage } from '../../../../src/server/feed/feed-page-write.js';
import { parseFeedQuery } from '../../../../src/server/feed/feed-query.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';
import { stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import { EVENT_LOG_FILE } from '../../../../src/server/feed/event-log.js';

const T0 = 1_700_000_000_000;
const TYPES = ['CPU_SATURATED', 'SLOW_DISK', 'CUSTOM_INFO'];

/** Event n: a start n × 10 ms after T0, SLOW_DISK when n % 3 is 1; `title` makes texts of different lengths. */
function event(n: number, title = `event ${'x'.repeat(n % 7)}`, eventType = TYPES[n % 3]): EncodedEvent {
  const result = encodeEvent({
    id: `${BigInt(n) * 7919n - 4314211936928920170n}_${T0 + n * 10}`,
    startTime: T0 + n * 10,
    eventType,
    entityId: `HOST-${n % 4}`,
    title,
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

interface Page {
  events: { startTime: number; title: string }[];
  totalEventCount: number;
  nextCursor: string | null;
}

async function page(store: EventStore, query: string): Promise<Page> {
  const request = parseFeedQuery(new URLSearchParams(query), T0 + 10_000, store.cursorKey, 'local');
  const { bytes: body } = await readFeedPage(store, request, { cursorKey: store.cursorKey, env: 'local', pageSize: 5 });
  return JSON.parse(body.toString()) as Page;
}

/**
 * A store of 20 events with titles of 100 kB, and `read(n)`: the first page of HOST-<n>'s, five to a page, as the route
 * reads it (lent, to be given back): some 500 kB, one to a 1 MB body slab.
 */
async function storeOfLargePages(dir: string): Promise<{ store: EventStore; read: (entity: number) => Promise<PageBody> }> {
  const store = await openEventStore({ dir });
  await store.put(Array.from({ length: 20 }, (_, n) => event(n, `event ${n} ${'x'.repeat(100_000)}`)));
  const read = (entity: number): Promise<PageBody> => {
    const request = parseFeedQuery(new URLSearchParams(`from=${T0}&to=${T0 + 1000}&entityId=HOST-${entity}`), T0 + 10_000, store.cursorKey, 'local');
    return readFeedPage(store, request, { cursorKey: store.cursorKey, env: 'local', pageSize: 5 });
  };
  return { store, read };
}

const starts = (p: Page): number[] => p.events.map((e) => (e.startTime - T0) / 10);
const SLOW_DISK = `from=${T0}&to=${T0 + 1000}&eventType=SLOW_DISK`;

describe('feed page bodies', () => {
  let dir: string;
  tempDirPerTest('dashcd-feed-page-body-', (created) => (dir = created));

  // Stored oldest first (as pushes append) the log runs against feed order; imported newest first, with it.
  for (const order of ['oldest first', 'newest first'] as const) {
    it(`answers a first page asked again with the same body, stored ${order}, and every later page in order`, async () => {
      const store = await openEventStore({ dir });
      const events = Array.from({ length: 40 }, (_, n) => event(n));
      await store.put(order === 'oldest first' ? events : events.reverse());
      const first = await page(store, SLOW_DISK);
      expect(starts(first)).toEqual([37, 34, 31, 28, 25]);
      expect(await page(store, SLOW_DISK)).toEqual(first);
      const second = await page(store, `cursor=${encodeURIComponent(first.nextCursor ?? '')}`);
      expect(starts(second)).toEqual([22, 19, 16, 13, 10]);
      expect(first.totalEventCount).toBe(13);
      await store.close();
    });
  }

  it('answers a kept first page with an event replaced since with its new text, never the kept one', async () => {
    const store = await openEventStore({ dir });
    await store.put(Array.from({ length: 20 }, (_, n) => event(n)));
    expect((await page(store, SLOW_DISK)).events.map((e) => e.title)).toEqual(['event xxxxx', 'event xx', 'event xxxxxx', 'event xxx', 'event ']);
    await store.put([event(13, 'replaced, and longer than before')]);
    const again = await page(store, SLOW_DISK);
    expect(starts(again)).toEqual([19, 16, 13, 10, 7]);
    expect(again.events.map((e) => e.title)).toEqual(['event xxxxx', 'event xx', 'replaced, and longer than before', 'event xxx', 'event ']);
    const byEntity = await page(store, `from=${T0}&to=${T0 + 1000}&entityId=HOST-1`);
    expect(byEntity.events.map((e) => e.title)).toEqual(['event xxx', 'replaced, and longer than before', 'event xx', 'event xxxxx', 'event x']);
    await store.close();
  });

  it('answers a first page asked again after an event changed its type (the count of events unchanged) as it is now', async () => {
    const store = await openEventStore({ dir });
    await store.put(Array.from({ length: 20 }, (_, n) => event(n)));
    const before = await page(store, SLOW_DISK);
    expect(starts(before)).toEqual([19, 16, 13, 10, 7]);
    expect(before.totalEventCount).toBe(7);
    await store.put([event(13, 'now a CPU event', 'CPU_SATURATED')]);
    const after = await page(store, SLOW_DISK);
    expect(starts(after)).toEqual([19, 16, 10, 7, 4]);
    expect(after.totalEventCount).toBe(6);
    await store.close();
  });

  it('answers an empty page and a one-event page as valid bodies', async () => {
    const store = await openEventStore({ dir });
    expect((await page(store, SLOW_DISK)).events).toEqual([]);
    await store.put([event(1)]);
    expect(starts(await page(store, `from=${T0}&to=${T0 + 1000}`))).toEqual([1]);
    expect(starts(await page(store, `from=${T0}&to=${T0 + 1000}`))).toEqual([1]);
    await store.close();
  });

  it('cuts later pages from the buffer of pages given back, and never from one whose page is still out', async () => {
    const { store, read } = await storeOfLargePages(dir);
    const out = await read(0);
    const outText = out.bytes.toString();
    const second = await read(1);
    expect(second.bytes.buffer).not.toBe(out.bytes.buffer);
    second.giveBack();
    const third = await read(2);
    expect(third.bytes.buffer).not.toBe(out.bytes.buffer);
    expect(out.bytes.toString()).toBe(outText);
    third.giveBack();
    const fourth = await read(3);
    expect([second.bytes.buffer, third.bytes.buffer]).toContain(fourth.bytes.buffer);
    await store.close();
  });

  it('cuts the room of a page whose read failed again (a log shorter than its index), and goes on answering', async () => {
    const { store, read } = await storeOfLargePages(dir);
    const first = await read(0);
    first.giveBack();
    // Event 19, HOST-3's newest, was appended last: cut it off the log.
    const log = join(dir, EVENT_LOG_FILE);
    await truncate(log, (await stat(log)).size - 1000);
    await expect(read(3)).rejects.toMatchObject({ code: 'STORE_IO' });
    const after = await read(1);
    expect(after.bytes.buffer).toBe(first.bytes.buffer);
    expect(JSON.parse(after.bytes.toString()).events).toHaveLength(5);
    await store.close();
  });
});
