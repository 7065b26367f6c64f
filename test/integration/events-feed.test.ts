import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/lib/clock.js';
import { silentLogger } from '../../src/lib/logger.js';
import { EventQueryResult, EventStoreResult } from '../../src/schema/events.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { encodeEvent, type EncodedEvent } from '../../src/server/feed/event-record.js';
import type { EventStore } from '../../src/server/feed/event-store.js';
import { eventsServerOptions } from '../../src/server/routes/events.js';
import { api, expectEnvelope, startTestServer, type ApiResponse, type TestServer } from '../helpers/server.js';

const NOW = 1_700_000_000_000;
const BIG_IDS = ['-4314211936928920170', '7892432332072369170', '-6388042533023614561'];

function fakeClock(start: number): Clock & { advance(ms: number): void } {
  let now = start;
  return { now: () => now, sleep: async () => undefined, advance: (ms) => void (now += ms) };
}

function stored(id: string, startTime: number, extra: Record<string, unknown> = {}): EncodedEvent {
  const result = encodeEvent({ id: `${id}_${startTime}`, startTime, endTime: startTime + 1, eventType: 'CPU_SATURATED', entityId: 'HOST-1', eventStatus: 'CLOSED', ...extra });
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.event;
}

describe('events feed over HTTP', () => {
  let server: TestServer;
  let clock: ReturnType<typeof fakeClock>;
  let ids: string[];
  const feed = (query = ''): string => `${server.url}/api/v1/events${query}`;
  const store = (): EventStore => {
    const events = server.server.environments.get(DEFAULT_ENVIRONMENT)?.events as EventStore | undefined;
    if (!events) throw new Error('no event store');
    return events;
  };
  const get = (query = ''): Promise<ApiResponse> => api(feed(query), { token: server.token });
  const push = (body: unknown): Promise<ApiResponse> => api(feed(), { method: 'POST', token: server.token, body });

  beforeEach(async () => {
    clock = fakeClock(NOW);
    ids = [...BIG_IDS];
    const options = eventsServerOptions({ log: silentLogger(), newEventId: () => ids.shift() ?? '1', newCorrelationId: () => `corr-${ids.length}` });
    server = await startTestServer({ ...options, events: false, clock, scopes: ['DataExport'] });
  });
  afterEach(async () => {
    await server.close();
  });

  it('answers an empty EventQueryResult for the default window, as application/json', async () => {
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(EventQueryResult.parse(response.json)).toEqual({
      events: [], totalEventCount: 0, from: NOW - 30 * 86_400_000, to: NOW, nextCursor: null, nextEventId: null, nextEventStartTms: null,
    });
  });

  it('needs DataExport for reading and pushing', async () => {
    const token = server.tokenFor(['ReadConfig', 'WriteConfig']);
    expectEnvelope(await api(feed(), { token }), 403, /DataExport/);
    expectEnvelope(await api(feed(), { method: 'POST', token, body: {} }), 403, /DataExport/);
    expectEnvelope(await api(feed()), 401);
  });

  it('keeps 64-bit event ids digit for digit from push to feed', async () => {
    const response = await push({ eventType: 'CUSTOM_DEPLOYMENT', source: 'ci', attachRules: { entityIds: ['SERVICE-1', 'SERVICE-2', 'SERVICE-1'] }, deploymentName: 'v2' });
    expect(response.status).toBe(200);
    expect(response.text).toBe(
      `{"storedEventIds":[${BIG_IDS[0]},${BIG_IDS[1]}],"storedIds":["${BIG_IDS[0]}_${NOW}","${BIG_IDS[1]}_${NOW}"],"storedCorrelationIds":[]}`,
    );
    EventStoreResult.parse(response.json);
    const page = await get();
    expect(page.text).toContain(`"eventId":${BIG_IDS[0]},`);
    expect(page.text).toContain(`"eventId":${BIG_IDS[1]},`);
    const result = EventQueryResult.parse(page.json);
    expect(result.totalEventCount).toBe(2);
    expect(result.events[0]).toMatchObject({ eventType: 'CUSTOM_DEPLOYMENT', eventStatus: 'CLOSED', startTime: NOW, endTime: NOW, source: 'ci', deploymentName: 'v2', entityName: 'SERVICE-2' });
    const one = await api(feed(`/${BIG_IDS[0]}_${NOW}`), { token: server.token });
    expect(one.text).toContain(`"id":"${BIG_IDS[0]}_${NOW}","eventId":${BIG_IDS[0]},`);
    expect((await api(feed(`/${BIG_IDS[1]}`), { token: server.token })).status).toBe(200);
    expectEnvelope(await api(feed('/123_456'), { token: server.token }), 404);
  });

  it('keeps a problem event open until its timeout, refreshed by sending the same payload again', async () => {
    const body = { eventType: 'ERROR_EVENT', source: 'probe', title: 'checkout failing', timeoutMinutes: 10, attachRules: { entityIds: ['SERVICE-9'] } };
    const first = EventStoreResult.parse((await push(body)).json);
    expect(first.storedIds).toEqual([]);
    expect(first.storedCorrelationIds).toHaveLength(1);
    expect(EventQueryResult.parse((await get()).json).events[0]).toMatchObject({ eventStatus: 'OPEN', severityLevel: 'ERROR', correlationId: first.storedCorrelationIds[0] });
    expect((await get()).text).not.toContain('endTime');

    clock.advance(8 * 60_000);
    const again = EventStoreResult.parse((await push(body)).json);
    expect(again.storedCorrelationIds).toEqual(first.storedCorrelationIds);
    clock.advance(8 * 60_000);
    expect(EventQueryResult.parse((await get()).json)).toMatchObject({ totalEventCount: 1, events: [{ eventStatus: 'OPEN' }] });

    clock.advance(3 * 60_000);
    const closed = EventQueryResult.parse((await get()).json);
    expect(closed.events).toHaveLength(1);
    expect(closed.events[0]).toMatchObject({ eventStatus: 'CLOSED', startTime: NOW, endTime: NOW + 18 * 60_000 });
  });

  it('attaches a tag rule to the entities seen in the last 24 hours that carry the tags', async () => {
    const tags = [{ context: 'CONTEXTLESS', key: 'team', value: 'payments' }];
    await store().put([
      stored('1', NOW - 3_600_000, { entityId: 'HOST-7', entityName: 'pay-1', tags }),
      stored('2', NOW - 3_600_000, { entityId: 'HOST-8', entityName: 'other', tags: [] }),
      stored('3', NOW - 3 * 86_400_000, { entityId: 'HOST-9', entityName: 'stale', tags }),
      stored('4', NOW - 3_600_000, { entityId: 'SERVICE-7', entityName: 'pay-svc', tags }),
    ]);
    const response = await push({ eventType: 'CUSTOM_INFO', source: 'ops', title: 'maintenance', attachRules: { tagRule: [{ meTypes: ['HOST'], tags: [{ context: 'CONTEXTLESS', key: 'team' }] }] } });
    expect(EventStoreResult.parse(response.json).storedIds).toEqual([`${BIG_IDS[0]}_${NOW}`]);
    const [pushed] = EventQueryResult.parse((await get('?eventType=CUSTOM_INFO')).json).events;
    expect(pushed).toMatchObject({ entityId: 'HOST-7', entityName: 'pay-1', tags, impactLevel: 'INFRASTRUCTURE' });

    const none = await push({ eventType: 'CUSTOM_INFO', source: 'ops', attachRules: { tagRule: [{ meTypes: ['HOST'], tags: [{ context: 'AWS', key: 'nope' }] }] } });
    expect(expectEnvelope(none, 400).error.constraintViolations).toEqual([expect.objectContaining({ path: 'attachRules.tagRule', parameterLocation: 'PAYLOAD_BODY' })]);
  });

  it('refuses a push that would store more than 8 MiB, or name more than 1000 entities, storing nothing', async () => {
    // The event is copied to each entity: 2,000 entities of a 141 kB push stored 230 MB and took the server to 1 GB.
    const texts = { title: 't'.repeat(10_000), description: 'd'.repeat(10_000), original: 'o'.repeat(10_000), changed: 'c'.repeat(10_000) };
    const entityIds = Array.from({ length: 300 }, (_, i) => `HOST-${i}`);
    const big = expectEnvelope(await push({ eventType: 'CUSTOM_INFO', source: 'ops', attachRules: { entityIds }, ...texts }), 400);
    expect(big.error.constraintViolations).toEqual([expect.objectContaining({ path: 'attachRules', message: expect.stringMatching(/^This event attached to 300 entities would store 11\.\d MiB; one push stores at most 8 MiB/) })]);
    // Counted in UTF-8 as stored: 40,000 CJK characters are 120 kB an event (counted as characters, 190 copies passed as 7 MB and stored 22 MB).
    const cjk = { title: '漢'.repeat(10_000), description: '漢'.repeat(10_000), original: '漢'.repeat(10_000), changed: '漢'.repeat(10_000) };
    const wide = expectEnvelope(await push({ eventType: 'CUSTOM_INFO', source: 'ops', attachRules: { entityIds: entityIds.slice(0, 100) }, ...cjk }), 400);
    expect(wide.error.constraintViolations).toEqual([expect.objectContaining({ message: expect.stringMatching(/^This event attached to 100 entities would store 11\.\d MiB/) })]);
    const many = expectEnvelope(await push({ eventType: 'CUSTOM_INFO', source: 'ops', attachRules: { entityIds: Array.from({ length: 1001 }, (_, i) => `HOST-${i}`) } }), 400);
    expect(many.error.constraintViolations).toEqual([expect.objectContaining({ path: 'attachRules.entityIds', message: 'At most 1000 entity ids per push; push the event again for the others.' })]);
    expect((await get()).json).toMatchObject({ totalEventCount: 0 });
    const fits = await push({ eventType: 'CUSTOM_INFO', source: 'ops', attachRules: { entityIds: entityIds.slice(0, 150) }, ...texts });
    expect(fits.status).toBe(200);
    // The attach rules are not stored: a thousand long entity ids with a short event fit (the list counted once a copy refused 500).
    const longIds = Array.from({ length: 1000 }, (_, i) => `PROCESS_GROUP_INSTANCE-${String(i).padStart(16, '0')}`);
    expect((await push({ eventType: 'CUSTOM_DEPLOYMENT', source: 'ci', deploymentName: 'v1.2.3', attachRules: { entityIds: longIds } })).status).toBe(200);
  });

  it('refuses invalid push bodies with one violation per problem', async () => {
    const missing = expectEnvelope(await push({ eventType: 'SLOW_DISK', timeoutMinutes: 500, attachRules: {} }), 400, 'Constraints violated.');
    expect(missing.error.constraintViolations?.map((v) => v.path).sort()).toEqual(['attachRules', 'eventType', 'source', 'timeoutMinutes']);
    const old = expectEnvelope(await push({ eventType: 'PERFORMANCE_EVENT', source: 's', start: NOW - 2 * 3_600_000, attachRules: { entityIds: ['HOST-1'] } }), 400);
    expect(old.error.constraintViolations).toEqual([expect.objectContaining({ path: 'start' })]);
    expect((await get()).json).toMatchObject({ totalEventCount: 0 });
  });

  it('refuses bad queries and tampered cursors with QUERY violations', async () => {
    for (const query of ['?eventType=NOPE', `?from=${NOW}&to=${NOW - 1}`, '?relativeTime=decade', `?from=0&to=${NOW}`, '?cursor=abc.def']) {
      const envelope = expectEnvelope(await get(query), 400, 'Constraints violated.');
      expect(envelope.error.constraintViolations?.[0]?.parameterLocation).toBe('QUERY');
    }
  });

  it('pages 400 events in pages of 150 with cursors, under /e/local and the bare root alike', async () => {
    await store().put(Array.from({ length: 400 }, (_, i) => stored(String(i - 200), NOW - 1_000_000 + i)));
    const seen = new Set<string>();
    let response = await get('?relativeTime=hour');
    const sizes: number[] = [];
    for (;;) {
      const page = EventQueryResult.parse(response.json);
      sizes.push(page.events.length);
      for (const event of page.events) seen.add(event.id);
      expect(page.totalEventCount).toBe(400);
      if (!page.nextCursor) break;
      expect(page.nextEventId).toBe(Number(page.nextEventId));
      const base = sizes.length % 2 === 0 ? server.url : server.baseUrl;
      response = await api(`${base}/api/v1/events?cursor=${encodeURIComponent(page.nextCursor)}&eventType=NOPE`, { token: server.token });
    }
    expect(sizes).toEqual([150, 150, 100]);
    expect(seen.size).toBe(400);
  });

  it('ends a page before the event that would take it past 8 MB, and gives that event first on the next page', async () => {
    // Events of up to a push body's size: 150 of them made a page no client reads (dashcd's reads 16 MiB).
    const title = 'x'.repeat(900_000);
    await store().put(Array.from({ length: 20 }, (_, i) => stored(String(i + 1), NOW - 1_000_000 + i, { title })));
    const seen: string[] = [];
    const bytes: number[] = [];
    let response = await get('?relativeTime=hour');
    for (;;) {
      bytes.push(Buffer.byteLength(response.text));
      const page = EventQueryResult.parse(response.json);
      seen.push(...page.events.map((e) => e.id));
      if (!page.nextCursor) break;
      response = await api(`${feed()}?cursor=${encodeURIComponent(page.nextCursor)}`, { token: server.token });
    }
    expect(bytes.length).toBe(3);
    expect(Math.max(...bytes)).toBeLessThan(8 * 1024 * 1024 + 2_000);
    expect(new Set(seen).size).toBe(20);
    expect(seen).toHaveLength(20);
  });
});
