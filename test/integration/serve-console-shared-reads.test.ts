import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveConsoleSource } from '../../src/cli/serve-console.js';
import { silentLogger } from '../../src/lib/logger.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  for (let i = 0; i < 5; i++) {
    const created = await api(`${server.baseUrl}/api/config/v1/dashboards`, { method: 'POST', token: server.token, body: { dashboardMetadata: { name: `board ${i}`, owner: 'ops' }, tiles: [] } });
    expect(created.status).toBe(201);
  }
});
afterAll(async () => server?.close());

describe("serve's console data", () => {
  it('is read once for views asked at the same time, and afresh for the next view after', async () => {
    // Each read parses every dashboard of the environment: forty views at once over 3,000 dashboards ran the server
    // out of memory, from loopback, with no token.
    const source = serveConsoleSource(server.server, silentLogger());
    const together = await Promise.all(Array.from({ length: 10 }, () => source.dashboards('local')));
    expect(new Set(together).size).toBe(1);
    expect(together[0]?.kind === 'live' && together[0].dashboards.map((d) => d.name).sort()).toEqual(['board 0', 'board 1', 'board 2', 'board 3', 'board 4']);
    const next = await source.dashboards('local');
    expect(next).not.toBe(together[0]);
    expect(next).toEqual(together[0]);
    const window = { from: Date.now() - 3_600_000, to: Date.now() };
    const events = await Promise.all([source.events('local', window), source.events('local', window)]);
    expect(events[0]).toBe(events[1]);
    expect(await source.events('local', { ...window, from: window.from - 1 })).not.toBe(events[0]);
  });
});
