import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { serveConsoleSource } from '../../src/cli/serve-console.js';
import { MAX_CONSOLE_EVENTS, type LiveEntry } from '../../src/console/console-data.js';
import { encodeEvent, type EncodedEvent } from '../../src/server/feed/event-record.js';
import { silentLogger } from '../../src/lib/logger.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';
import { api } from '../helpers/server.js';

let server: DocumentServer;
let documents: DocumentsClient;
const ids: string[] = [];
const json = (value: unknown) => ({ bytes: Buffer.from(JSON.stringify(value)), contentType: 'application/json' });

beforeAll(async () => {
  server = await startDocumentServer({ events: true });
  for (let i = 0; i < 5; i++) {
    const created = await api(`${server.baseUrl}/api/config/v1/dashboards`, { method: 'POST', token: server.token, body: { dashboardMetadata: { name: `board ${i}`, owner: 'ops' }, tiles: [] } });
    expect(created.status).toBe(201);
    ids.push((created.json as { id: string }).id);
  }
  documents = createDocumentsClient({ platformUrl: server.baseUrl, credential: { kind: 'platform-token', token: await server.platformToken({ subject: 'ops' }) } });
  await documents.create({ name: 'Checkout', type: 'dashboard', id: 'checkout', isPrivate: false, content: json({ version: 21, tiles: {}, layouts: {} }) });
  await documents.create({ name: 'Runbook', type: 'notebook', id: 'runbook', isPrivate: false, content: json({ version: '5', sections: [] }) });
});
afterAll(async () => {
  await documents?.close();
  await server?.close();
});

const byName = (state: Awaited<ReturnType<ReturnType<typeof serveConsoleSource>['dashboards']>>): Map<string, LiveEntry> =>
  new Map(state?.kind === 'live' ? state.dashboards.map((d) => [d.name, d]) : []);

describe("serve's console data", () => {
  it('is read once for views asked at the same time, and afresh for the next view after', async () => {
    // Forty views at once over 3,000 dashboards ran the server out of memory, from loopback, with no token.
    const source = serveConsoleSource(server.server, silentLogger());
    const together = await Promise.all(Array.from({ length: 10 }, () => source.dashboards('local')));
    expect(new Set(together).size).toBe(1);
    expect([...byName(together[0]).keys()].sort()).toEqual(['Checkout', 'Runbook', 'board 0', 'board 1', 'board 2', 'board 3', 'board 4']);
    const next = await source.dashboards('local');
    expect(next).not.toBe(together[0]);
    expect([...byName(next).keys()].sort()).toEqual([...byName(together[0]).keys()].sort());
    const window = { from: Date.now() - 3_600_000, to: Date.now() };
    const events = await Promise.all([source.events('local', window, {}), source.events('local', window, {})]);
    expect(events[0]).toBe(events[1]);
    expect(await source.events('local', { ...window, from: window.from - 1 }, {})).not.toBe(events[0]);
  });

  it('lists names and kinds only: a body is read when its page asks for it, as it is then', async () => {
    // Each view parsed every dashboard's body and fetched every document's content: 0.3–0.5 s of the server's
    // thread per view over 3,000 dashboards, one view after another.
    const source = serveConsoleSource(server.server, silentLogger());
    const listed = byName(await source.dashboards('local'));
    expect(listed.get('Checkout')?.documentKind).toBe('dashboard');
    expect(listed.get('Runbook')?.documentKind).toBe('notebook');
    expect(listed.get('board 0')?.documentKind).toBeUndefined();

    const renamed = await api(`${server.baseUrl}/api/config/v1/dashboards/${ids[0]}`, { method: 'PUT', token: server.token, body: { dashboardMetadata: { name: 'board 0, renamed', owner: 'ops' }, tiles: [] } });
    expect(renamed.status).toBe(204);
    await documents.replaceContent('checkout', 1, json({ version: 21, tiles: { 1: { type: 'markdown', content: 'now' } }, layouts: {} }));
    expect(await listed.get('board 0')?.body()).toMatchObject({ id: ids[0], dashboardMetadata: { name: 'board 0, renamed' } });
    expect(await listed.get('Checkout')?.body()).toMatchObject({ document: { kind: 'dashboard', name: 'Checkout' }, tiles: { 1: { content: 'now' } } });
    expect(await listed.get('Runbook')?.body()).toMatchObject({ document: { kind: 'notebook' }, sections: [] });

    const removed = await api(`${server.baseUrl}/api/config/v1/dashboards/${ids[1]}`, { method: 'DELETE', token: server.token });
    expect(removed.status).toBe(204);
    expect(await listed.get('board 1')?.body()).toBeUndefined();
  });

  it("reads a window's newest 3,000 events, and says when it holds more", async () => {
    const store = server.server.environments.lookup('local')?.events;
    if (!store) throw new Error('the test server has no events feed');
    const end = Date.now() - 60_000;
    const events = (count: number, first: number): EncodedEvent[] =>
      Array.from({ length: count }, (_, i) => {
        const startTime = end - (first + i) * 1_000;
        const result = encodeEvent({ id: `${7000 + first + i}_${startTime}`, eventId: 7000 + first + i, startTime, endTime: startTime + 10, eventType: 'CUSTOM_INFO', entityId: 'HOST-1', eventStatus: 'CLOSED' });
        if (!result.ok) throw new Error(result.problems.join('; '));
        return result.event;
      });
    await store.put(events(MAX_CONSOLE_EVENTS, 0));
    const source = serveConsoleSource(server.server, silentLogger());
    const window = { from: end - 2 * 3_600_000, to: end + 1 };
    const exactly = await source.events('local', window, {});
    expect([exactly.events.length, exactly.cut]).toEqual([MAX_CONSOLE_EVENTS, false]);
    await store.put(events(1, MAX_CONSOLE_EVENTS));
    const more = await source.events('local', window, {});
    expect([more.events.length, more.cut]).toEqual([MAX_CONSOLE_EVENTS, true]);
    expect(more.events[0]?.start).toBe(end);
    expect(more.events.at(-1)?.start).toBe(end - (MAX_CONSOLE_EVENTS - 1) * 1_000);
  });
});
