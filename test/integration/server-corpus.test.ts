import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDashboardId } from '../../src/schema/ids.js';
import { api, dashboardsUrl, expectEnvelope, startTestServer, type TestServer } from '../helpers/server.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS = CORPUS_DASHBOARDS_DIR;
const REJECTED: Record<string, string> = {
  'mauney-automation__dashboard_template.json': 'tiles[39].tileType',
  'mauney-automation__00000000-dddd-bbbb-aaaa-000000000002.json': 'dashboardMetadata.dynamicFilters.genericTagFilters',
};
const files = readdirSync(CORPUS).filter((name) => name.endsWith('.json'));
const accepted = files.filter((name) => !(name in REJECTED));

function load(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(CORPUS, name), 'utf8')) as Record<string, unknown>;
}

/** Everything but the server-owned members, serialised: equal strings mean equal values in the same key order. */
function clientPart(dashboard: Record<string, unknown>): string {
  const { id: _id, metadata: _metadata, ...rest } = dashboard;
  return JSON.stringify(rest);
}

describe('the real-world dashboard corpus', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server.close());

  it('has the 47 files the README describes', () => {
    expect(files).toHaveLength(47);
    expect(accepted).toHaveLength(45);
  });

  it.each(accepted)('%s is accepted, stored and returned unchanged apart from id and metadata', async (name) => {
    const original = load(name);
    const pathId = typeof original['id'] === 'string' ? parseDashboardId(original['id']) : undefined;
    const write = pathId
      ? await api(dashboardsUrl(server, `/${pathId}`), { method: 'PUT', token: server.token, body: original })
      : await api(dashboardsUrl(server), { method: 'POST', token: server.token, body: original });
    expect([201, 204], write.text).toContain(write.status);
    const id = pathId ?? (write.json as { id: string }).id;
    const served = await api(dashboardsUrl(server, `/${id}`), { token: server.token });
    expect(served.status).toBe(200);
    const body = served.json as Record<string, unknown>;
    expect(clientPart(body)).toBe(clientPart(original));
    expect(Object.keys(body).slice(0, 2)).toEqual(['metadata', 'id']);
    expect(body['id']).toBe(id);
  });

  it.each(Object.entries(REJECTED))('%s is rejected with exactly the violation at %s, and not stored', async (name, path) => {
    const original = load(name);
    const id = parseDashboardId(String(original['id']));
    for (const url of [dashboardsUrl(server, `/${id}`), dashboardsUrl(server, `/${id}/validator`)]) {
      const method = url.endsWith('/validator') ? 'POST' : 'PUT';
      const envelope = expectEnvelope(await api(url, { method, token: server.token, body: original }), 400, 'Constraints violated.');
      expect(envelope.error.constraintViolations).toHaveLength(1);
      expect(envelope.error.constraintViolations?.[0]).toMatchObject({ path, parameterLocation: 'PAYLOAD_BODY', location: null });
    }
    expectEnvelope(await api(dashboardsUrl(server, `/${id}`), { token: server.token }), 404);
  });
});
