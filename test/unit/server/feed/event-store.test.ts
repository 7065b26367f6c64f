import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeEvent, fieldsOfLine, type EncodedEvent } from '../../../../src/server/feed/event-record.js';
import { EVENT_LOG_FILE } from '../../../../src/server/feed/event-log.js';
import type { EventStore } from '../../../../src/server/feed/event-store.js';
import { openEventStore } from '../../../../src/server/feed/open-event-store.js';
import type { IndexFilter } from '../../../../src/server/feed/index-query.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';
import { pageOf } from '../../../helpers/store-page.js';

const BIG = '-4314211936928920170';
const T0 = 1_700_000_000_000;

function event(eventId: string, startTime: number, extra: Record<string, unknown> = {}): EncodedEvent {
  const result = encodeEvent({
    id: `${eventId}_${startTime}`,
    startTime,
    eventType: 'CPU_SATURATED',
    entityId: 'HOST-0000000000000001',
    eventStatus: 'CLOSED',
    endTime: startTime + 1000,
    ...extra,
  });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

async function all(store: EventStore, filter: IndexFilter): Promise<Array<Record<string, unknown>>> {
  const page = await pageOf(store, { filter, watermark: store.size, limit: 1000, countTotal: true });
  return page.texts.map((text) => JSON.parse(text.toString('utf8')) as Record<string, unknown>);
}

const WIDE: IndexFilter = { from: 0, to: 2 * T0 };

describe('event store', () => {
  let dir: string;
  tempDirPerTest('dashcd-events-', (created) => (dir = created));

  it('returns events newest first, ties on start time broken by event id descending', async () => {
    const store = await openEventStore({ dir });
    await store.put([event('5', T0), event('7', T0 + 10), event('-3', T0 + 10), event('9', T0 - 5)]);
    const ids = (await all(store, WIDE)).map((e) => e['id']);
    expect(ids).toEqual([`7_${T0 + 10}`, `-3_${T0 + 10}`, `5_${T0}`, `9_${T0 - 5}`]);
    await store.close();
  });

  it('keeps a 64-bit event id digit for digit in the stored text and in the log', async () => {
    const store = await openEventStore({ dir });
    await store.put([event(BIG, T0)]);
    const [page] = (await pageOf(store, { filter: WIDE, watermark: 1, limit: 10, countTotal: false })).texts;
    expect(page?.toString()).toContain(`"eventId":${BIG},`);
    expect(page?.toString()).toContain(`"id":"${BIG}_${T0}"`);
    await store.close();
    expect(await readFile(join(dir, EVENT_LOG_FILE), 'utf8')).toContain(`"eventId":${BIG},`);
  });

  it('replaces an event by a later record with the same id: an open event closes', async () => {
    const store = await openEventStore({ dir });
    await store.put([event(BIG, T0, { endTime: undefined, eventStatus: 'OPEN' })]);
    const open = await store.openEvents();
    expect(open).toHaveLength(1);
    const outcome = await store.put([event(BIG, T0, { endTime: T0 + 60_000, eventStatus: 'CLOSED' })]);
    expect(outcome).toEqual({ created: 0, replaced: 1 });
    expect(store.size).toBe(1);
    expect(await store.openEvents()).toHaveLength(0);
    const [stored] = await all(store, WIDE);
    expect(stored).toMatchObject({ eventStatus: 'CLOSED', endTime: T0 + 60_000 });
    await store.close();
  });

  it('moves a replaced event between type and entity filters', async () => {
    const store = await openEventStore({ dir });
    await store.put([event('1', T0), event('2', T0 + 1)]);
    await store.put([event('1', T0, { eventType: 'SLOW_DISK', entityId: 'HOST-2' })]);
    expect((await all(store, { ...WIDE, eventType: 'CPU_SATURATED' })).map((e) => e['id'])).toEqual([`2_${T0 + 1}`]);
    expect((await all(store, { ...WIDE, eventType: 'SLOW_DISK', entityId: 'HOST-2' })).map((e) => e['id'])).toEqual([`1_${T0}`]);
    expect(await all(store, { ...WIDE, entityId: 'HOST-0000000000000001', eventType: 'SLOW_DISK' })).toEqual([]);
    await store.close();
  });

  it('includes an event when its start or its end is in the window, and an open event only by its start', async () => {
    const store = await openEventStore({ dir });
    await store.put([
      event('1', T0 - 5000, { endTime: T0 + 10 }), // ends inside
      event('2', T0 - 5000, { endTime: T0 - 1 }), // ends just before
      event('3', T0 - 5000, { endTime: undefined, eventStatus: 'OPEN' }), // open, started before
      event('4', T0 + 50, { endTime: undefined, eventStatus: 'OPEN' }), // open, started inside
      event('5', T0 - 9000, { endTime: T0 + 5000 }), // spans the whole window
    ]);
    const ids = (await all(store, { from: T0, to: T0 + 100 })).map((e) => e['id']);
    expect(ids).toEqual([`4_${T0 + 50}`, `1_${T0 - 5000}`]);
    await store.close();
  });

  it('finds an event by its encoded id and by its bare event id', async () => {
    const store = await openEventStore({ dir });
    await store.put([event(BIG, T0), event('12', T0 + 1)]);
    expect((await store.get(`${BIG}_${T0}`))?.toString()).toContain(BIG);
    expect(await store.get(`${BIG}_${T0 + 1}`)).toBeUndefined();
    expect((await store.findByEventId(BIG))?.toString()).toContain(`"id":"${BIG}_${T0}"`);
    expect(await store.findByEventId('13')).toBeUndefined();
    await store.close();
  });

  it('serves everything it acknowledged after a reopen, with the same order and cursor key', async () => {
    const first = await openEventStore({ dir });
    const key = first.cursorKey;
    await first.put([event('1', T0), event('2', T0 + 1)]);
    await first.put([event('1', T0, { endTime: T0 + 99 })]);
    await first.close();
    const second = await openEventStore({ dir });
    expect(second.cursorKey.equals(key)).toBe(true);
    expect(second.size).toBe(2);
    expect((await all(second, WIDE)).map((e) => [e['id'], e['endTime']])).toEqual([
      [`2_${T0 + 1}`, T0 + 1001],
      [`1_${T0}`, T0 + 99],
    ]);
    await second.close();
  });

  it('serves a page asked again as it is now when one of its events was replaced since', async () => {
    const store = await openEventStore({ dir });
    await store.put([event('1', T0), event('2', T0 + 1), event('3', T0 + 2)]);
    const ask = async (): Promise<unknown[]> => {
      const page = await pageOf(store, { filter: WIDE, watermark: store.size, limit: 2, countTotal: true });
      return page.texts.map((text) => JSON.parse(text.toString()) as Record<string, unknown>).map((e) => [e['id'], e['endTime']]);
    };
    expect(await ask()).toEqual([[`3_${T0 + 2}`, T0 + 1002], [`2_${T0 + 1}`, T0 + 1001]]);
    await store.put([event('2', T0 + 1, { endTime: T0 + 77 })]);
    expect(await ask()).toEqual([[`3_${T0 + 2}`, T0 + 1002], [`2_${T0 + 1}`, T0 + 77]]);
    await store.close();
  });

  it('refuses to work after close with a typed error', async () => {
    const store = await openEventStore({ dir });
    await store.close();
    await expect(store.put([event('1', T0)])).rejects.toMatchObject({ code: 'STORE_CLOSED' });
    await expect(pageOf(store, { filter: WIDE, watermark: 0, limit: 1, countTotal: true })).rejects.toMatchObject({ code: 'STORE_CLOSED' });
  });
});

describe('event encoding', () => {
  it('writes the index fields first and reads them back without a full parse', () => {
    const encoded = event(BIG, T0, { entityName: 'web-1', tags: [{ context: 'CONTEXTLESS', key: 'k' }] });
    expect(encoded.text.startsWith(`{"id":"${BIG}_${T0}","eventId":${BIG},"startTime":${T0},"endTime":${T0 + 1000},`)).toBe(true);
    const bytes = Buffer.from(encoded.text);
    expect(fieldsOfLine(bytes, 0, bytes.length)).toEqual(encoded.fields);
  });

  it('reads a line written in another member order (or with escapes) through the slow path', () => {
    const text = `{"eventType":"CPU_SATURATED","entityId":"HOST-\\u0041","startTime":${T0},"id":"${BIG}_${T0}"}`;
    const bytes = Buffer.from(text);
    expect(fieldsOfLine(bytes, 0, bytes.length)).toMatchObject({ startTime: T0, entityId: 'HOST-A', endTime: undefined });
  });

  it('rejects an id whose start time disagrees with startTime, an end before the start, and an out-of-range id', () => {
    const base = { eventType: 'CUSTOM_INFO', startTime: T0 };
    expect(encodeEvent({ ...base, id: `1_${T0 + 1}` })).toMatchObject({ ok: false });
    expect(encodeEvent({ ...base, id: `1_${T0}`, endTime: T0 - 1 })).toMatchObject({ ok: false });
    expect(encodeEvent({ ...base, id: `9223372036854775808_${T0}` })).toMatchObject({ ok: false });
    expect(encodeEvent({ ...base, id: `-9223372036854775808_${T0}` })).toMatchObject({ ok: true });
    expect(encodeEvent({ ...base, id: `007_${T0}` })).toMatchObject({ ok: false });
  });

  it('keeps a member named __proto__ as data', () => {
    const parsed = JSON.parse(`{"id":"1_${T0}","startTime":${T0},"eventType":"CUSTOM_INFO","__proto__":{"x":1}}`) as Record<string, unknown>;
    const result = encodeEvent(parsed);
    expect(result.ok && result.event.text).toContain('"__proto__":{"x":1}');
  });
});
