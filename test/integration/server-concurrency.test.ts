import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { api, dashboardsUrl, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

const ID = '5c0c0000-aaaa-4bbb-8ccc-000000000001';

/** A dashboard and its server-owned members taken off, to compare with what a client sent. */
function clientPart(stored: unknown): Record<string, unknown> {
  const { id: _id, metadata: _metadata, ...rest } = stored as Record<string, unknown>;
  return rest;
}

describe('concurrent requests over HTTP', () => {
  let server: TestServer;
  const auth = (): { token: string } => ({ token: server.token });
  beforeAll(async () => (server = await startTestServer()));
  afterAll(async () => server.close());

  it('50 parallel POST creates get 50 distinct ids, each listed and readable with its own body', async () => {
    const bodies = Array.from({ length: 50 }, (_, i) => minimalDashboard(`parallel-${i}`, { tiles: [{ name: `t${i}`, tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 38, height: 38 }, markdown: `# ${i}` }] }));
    const responses = await Promise.all(bodies.map((body) => api(dashboardsUrl(server), { method: 'POST', ...auth(), body })));
    expect(responses.map((r) => r.status)).toEqual(bodies.map(() => 201));
    const created = responses.map((r) => r.json as { id: string; name: string });
    expect(created.map((c) => c.name)).toEqual(bodies.map((_, i) => `parallel-${i}`));
    expect(new Set(created.map((c) => c.id)).size).toBe(50);

    const listed = (await api(dashboardsUrl(server), auth())).json as { dashboards: Array<{ id: string; name: string }> };
    const byId = new Map(listed.dashboards.map((d) => [d.id, d.name]));
    for (const { id, name } of created) expect(byId.get(id)).toBe(name);
    const fetched = await Promise.all(created.map(({ id }) => api(dashboardsUrl(server, `/${id}`), auth())));
    fetched.forEach((response, i) => expect(clientPart(response.json)).toEqual(bodies[i]));
  });

  it('40 parallel PUTs of different bodies to one id leave one whole version equal to one body, numbered 40', async () => {
    const bodies = Array.from({ length: 40 }, (_, i) =>
      minimalDashboard(`racer-${i}`, { dashboardMetadata: { name: `racer-${i}`, owner: `owner-${i}`, tags: [`t${i}`] }, padding: `${i}`.repeat(2_000 + i) }),
    );
    const url = dashboardsUrl(server, `/${ID}`);
    const statuses = (await Promise.all(bodies.map((body) => api(url, { method: 'PUT', ...auth(), body })))).map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 204)).toHaveLength(39);

    const served = (await api(url, auth())).json as { id: string; metadata: { configurationVersions: number[] } };
    const winner = bodies.find((body) => JSON.stringify(body) === JSON.stringify(clientPart(served)));
    expect(winner, 'the served dashboard is exactly one of the bodies sent').toBeDefined();
    expect(served.id).toBe(ID);
    expect(served.metadata.configurationVersions).toEqual([40]);

    // Acknowledged from the journal; the file follows.
    await server.server.environments.get(DEFAULT_ENVIRONMENT)!.dashboards.flushed();
    const dir = join(server.dataDir, 'env', 'local', 'dashboards');
    expect(JSON.parse(await readFile(join(dir, `${ID}.json`), 'utf8'))).toEqual(served);
    expect((await readdir(dir)).filter((name) => name.startsWith(ID))).toEqual([`${ID}.json`]);
    const listed = (await api(dashboardsUrl(server), auth())).json as { dashboards: Array<{ id: string; name: string; owner: string }> };
    const winnerMeta = winner?.['dashboardMetadata'] as { name: string; owner: string };
    expect(listed.dashboards.filter((d) => d.id === ID)).toEqual([{ id: ID, name: winnerMeta.name, owner: winnerMeta.owner }]);
  });
});
