import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT, DashboardId } from '../../src/schema/ids.js';
import {
  api,
  dashboardsUrl,
  expectEnvelope,
  minimalDashboard,
  rawApi,
  startTestServer,
  type TestServer,
} from '../helpers/server.js';

const UUID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';

describe('dashboard endpoints', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    token = server.token;
  });
  afterAll(async () => server.close());

  it('POST creates: 201 with {id, name} and a Location that GET answers', async () => {
    const created = await api(dashboardsUrl(server), { method: 'POST', token, body: minimalDashboard('created') });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const { id, name } = created.json as { id: string; name: string };
    expect(name).toBe('created');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.headers.get('location')).toBe(`/e/local/api/config/v1/dashboards/${id}`);
    const fetched = await api(`${server.baseUrl}${created.headers.get('location')}`, { token });
    expect(fetched.status).toBe(200);
    expect(fetched.json).toMatchObject({ id, dashboardMetadata: { name: 'created', owner: 'tester' }, tiles: [] });
  });

  it('GET sends text beyond ASCII byte for byte, with a content-length that counts bytes', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-0000000000e9';
    const name = 'Übersicht — 日本 🚀';
    expect((await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard(name) })).status).toBe(201);
    const fetched = await api(dashboardsUrl(server, `/${id}`), { token });
    expect(fetched.status).toBe(200);
    expect((fetched.json as { dashboardMetadata: { name: string } }).dashboardMetadata.name).toBe(name);
    expect(Number(fetched.headers.get('content-length'))).toBe(Buffer.byteLength(fetched.text));
  });

  it('POST with a body id is a 400 naming the id, and stores nothing', async () => {
    const before = (await api(dashboardsUrl(server), { token })).json as { dashboards: unknown[] };
    const response = await api(dashboardsUrl(server), { method: 'POST', token, body: minimalDashboard('x', { id: UUID }) });
    const envelope = expectEnvelope(response, 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations).toEqual([
      expect.objectContaining({ path: 'id', parameterLocation: 'PAYLOAD_BODY', location: null }),
    ]);
    const after = (await api(dashboardsUrl(server), { token })).json as { dashboards: unknown[] };
    expect(after.dashboards).toHaveLength(before.dashboards.length);
  });

  it('POST accepts id "" (as real exports carry it) and assigns a fresh id', async () => {
    const response = await api(dashboardsUrl(server), { method: 'POST', token, body: minimalDashboard('blank', { id: '' }) });
    expect(response.status).toBe(201);
    expect((response.json as { id: string }).id).not.toBe('');
  });

  it('GET returns the dashboard with id and server metadata whose versions grow on every write', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000001';
    const url = dashboardsUrl(server, `/${id}`);
    expect((await api(url, { method: 'PUT', token, body: minimalDashboard('v1') })).status).toBe(201);
    const first = (await api(url, { token })).json as { metadata: Record<string, unknown>; id: string };
    expect(first.id).toBe(id);
    expect(first.metadata).toEqual({
      clusterVersion: 'dashcd-0.1.0',
      configurationVersions: [1],
      currentConfigurationVersions: ['1'],
    });
    expect((await api(url, { method: 'PUT', token, body: minimalDashboard('v2') })).status).toBe(204);
    const second = (await api(url, { token })).json as { metadata: { configurationVersions: number[] } };
    expect(second.metadata.configurationVersions).toEqual([2]);
  });

  it('PUT to a new id is 201 with {id, name}; to an existing one 204 without a body', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000002';
    const created = await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard('put') });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ id, name: 'put' });
    const replaced = await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard('put2') });
    expect(replaced.status).toBe(204);
    expect(replaced.text).toBe('');
    expect(((await api(dashboardsUrl(server, `/${id}`), { token })).json as { dashboardMetadata: { name: string } }).dashboardMetadata.name).toBe('put2');
  });

  it('PUT ignores client metadata and accepts a body id equal to the path id (any case) or ""', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000003';
    const url = dashboardsUrl(server, `/${id}`);
    const body = minimalDashboard('meta', { id: id.toUpperCase(), metadata: { configurationVersions: [42], clusterVersion: 'x' } });
    expect((await api(url, { method: 'PUT', token, body })).status).toBe(201);
    expect((await api(url, { method: 'PUT', token, body: minimalDashboard('meta', { id: '' }) })).status).toBe(204);
    const stored = (await api(url, { token })).json as { metadata: { clusterVersion: string; configurationVersions: number[] } };
    expect(stored.metadata).toMatchObject({ clusterVersion: 'dashcd-0.1.0', configurationVersions: [2] });
  });

  it('PUT with a body id that differs from the path id is a 400 with one violation, nothing stored', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000004';
    const response = await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard('x', { id: UUID }) });
    const envelope = expectEnvelope(response, 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations).toEqual([
      { path: 'id', message: `Must match the id in the path (${id}).`, parameterLocation: 'PAYLOAD_BODY', location: null },
    ]);
    expectEnvelope(await api(dashboardsUrl(server, `/${id}`), { token }), 404, `Dashboard ${id} not found`);
  });

  it('reports every schema problem of a body in one 400', async () => {
    const body = { dashboardMetadata: { name: 5 }, tiles: [{ name: 't', tileType: 'NOPE', bounds: {} }, { tileType: 'MARKDOWN' }] };
    const envelope = expectEnvelope(await api(dashboardsUrl(server), { method: 'POST', token, body }), 400, 'Constraints violated.');
    const paths = envelope.error.constraintViolations?.map((v) => v.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dashboardMetadata.name', 'dashboardMetadata.owner', 'tiles[0].tileType', 'tiles[1].name']),
    );
    expect(envelope.error.constraintViolations?.every((v) => v.parameterLocation === 'PAYLOAD_BODY')).toBe(true);
  });

  it('lists the first 100 problems of a body with very many, saying how many there were (300,000 empty tiles drew a 280 MB answer)', async () => {
    const tiles = `[${Array.from({ length: 5_000 }, () => '{}').join(',')}]`;
    const body = `{"dashboardMetadata":{"name":"many","owner":"o"},"tiles":${tiles}}`;
    for (const url of [dashboardsUrl(server, '/validator'), dashboardsUrl(server)]) {
      const answer = await api(url, { method: 'POST', token, body });
      const envelope = expectEnvelope(answer, 400, 'Constraints violated. (5000 violations; the first 100 are listed)');
      expect(envelope.error.constraintViolations?.map((v) => v.path)).toEqual(Array.from({ length: 100 }, (_, i) => `tiles[${i}].tileType`));
      expect(answer.text.length).toBeLessThan(150_000);
    }
    // The body's id problem is listed first, however many the schema's are.
    const withId = body.replace('{"dashboardMetadata"', `{"id":"${UUID}","dashboardMetadata"`);
    const envelope = expectEnvelope(await api(dashboardsUrl(server), { method: 'POST', token, body: withId }), 400, 'Constraints violated. (5001 violations; the first 100 are listed)');
    expect(envelope.error.constraintViolations?.[0]?.path).toBe('id');
    // Up to 100, the real service's message as it is.
    const few = { dashboardMetadata: { name: 'few', owner: 'o' }, tiles: Array.from({ length: 100 }, () => ({})) };
    const listed = expectEnvelope(await api(dashboardsUrl(server, '/validator'), { method: 'POST', token, body: few }), 400, 'Constraints violated.');
    expect(listed.error.constraintViolations).toHaveLength(100);
  });

  it('refuses a body of more than 10,000 tiles with one violation, before checking any of them', async () => {
    const body = `{"dashboardMetadata":{"name":"huge","owner":"o"},"tiles":[${Array.from({ length: 10_001 }, () => '{}').join(',')}]}`;
    for (const url of [dashboardsUrl(server, '/validator'), dashboardsUrl(server)]) {
      const envelope = expectEnvelope(await api(url, { method: 'POST', token, body }), 400, 'Constraints violated.');
      expect(envelope.error.constraintViolations).toEqual([{ path: 'tiles', message: 'A dashboard holds at most 10,000 tiles; this one has 10,001.', parameterLocation: 'PAYLOAD_BODY', location: null }]);
    }
  });

  it.each([
    ['an unknown entry', ['SERVICE_TAG_KEY:team', 'NO_SUCH_FILTER'], 'dashboardMetadata.dynamicFilters.filters[1]'],
    ['SERVICE_TAG_KEY: with an empty parameter', ['SERVICE_TAG_KEY:'], 'dashboardMetadata.dynamicFilters.filters[0]'],
    ['a parameter on a filter that takes none', ['RELATED_NAMESPACE', 'HOST_TAG_KEY:env', 'SERVICE_TYPE:web'], 'dashboardMetadata.dynamicFilters.filters[2]'],
  ])('refuses dynamicFilters.filters with %s: 400 naming that entry, nothing stored', async (_what, filters, path) => {
    const body = minimalDashboard('filtered');
    Object.assign(body['dashboardMetadata'] as object, { dynamicFilters: { filters, genericTagFilters: [] } });
    for (const [url, method] of [[dashboardsUrl(server), 'POST'], [dashboardsUrl(server, `/${UUID}`), 'PUT']] as const) {
      const envelope = expectEnvelope(await api(url, { method, token, body }), 400, 'Constraints violated.');
      expect(envelope.error.constraintViolations).toEqual([
        { path, message: expect.stringMatching(/^Not an allowed filter: use one of .*SERVICE_TAG_KEY:<name>/), parameterLocation: 'PAYLOAD_BODY', location: null },
      ]);
    }
    expectEnvelope(await api(dashboardsUrl(server, `/${UUID}`), { token }), 404);
    const valid = { ...body, dashboardMetadata: { ...(body['dashboardMetadata'] as object), dynamicFilters: { filters: ['SERVICE_TAG_KEY:team'], genericTagFilters: [] } } };
    expect((await api(dashboardsUrl(server, '/validator'), { method: 'POST', token, body: valid })).status).toBe(204);
  });

  it('a non-object JSON body is a 400', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      expectEnvelope(await api(dashboardsUrl(server), { method: 'POST', token, body }), 400, /^Could not map JSON/);
    }
  });

  it('validators answer 204 for a valid body and 400 for an invalid one, and store nothing', async () => {
    const count = async () => ((await api(dashboardsUrl(server), { token })).json as { dashboards: unknown[] }).dashboards.length;
    const before = await count();
    expect((await api(dashboardsUrl(server, '/validator'), { method: 'POST', token, body: minimalDashboard() })).status).toBe(204);
    expectEnvelope(await api(dashboardsUrl(server, '/validator'), { method: 'POST', token, body: { tiles: [] } }), 400);
    expectEnvelope(
      await api(dashboardsUrl(server, '/validator'), { method: 'POST', token, body: minimalDashboard('x', { id: UUID }) }),
      400,
    );
    const putValidator = dashboardsUrl(server, `/${UUID}/validator`);
    expect((await api(putValidator, { method: 'POST', token, body: minimalDashboard('x', { id: UUID }) })).status).toBe(204);
    const mismatch = await api(putValidator, { method: 'POST', token, body: minimalDashboard('x', { id: '11111111-aaaa-4bbb-8ccc-000000000009' }) });
    expectEnvelope(mismatch, 400);
    expectEnvelope(await api(dashboardsUrl(server, '/nope/validator'), { method: 'POST', token, body: minimalDashboard() }), 400);
    expect(await count()).toBe(before);
    expectEnvelope(await api(dashboardsUrl(server, `/${UUID}`), { token }), 404);
  });

  it('lists stubs and filters by owner and by all repeated tags', async () => {
    const other = await startTestServer();
    try {
      const make = (name: string, owner: string, tags: string[]) =>
        api(dashboardsUrl(other), { method: 'POST', token: other.token, body: { dashboardMetadata: { name, owner, tags }, tiles: [] } });
      const a = (await make('a', 'ann', ['prod', 'web'])).json as { id: string };
      await make('b', 'bob', ['prod']);
      await make('c', 'ann', []);
      const list = await api(dashboardsUrl(other), { token: other.token });
      expect(list.status).toBe(200);
      expect((list.json as { dashboards: Array<{ name: string }> }).dashboards.map((d) => d.name)).toEqual(['a', 'b', 'c']);
      const names = async (query: string) =>
        ((await api(dashboardsUrl(other, query), { token: other.token })).json as { dashboards: Array<{ name: string }> }).dashboards.map((d) => d.name);
      expect(await names('?owner=ann')).toEqual(['a', 'c']);
      expect(await names('?tags=prod')).toEqual(['a', 'b']);
      expect(await names('?tags=prod&tags=web')).toEqual(['a']);
      expect(await names('?owner=bob&tags=web')).toEqual([]);
      expect(((await api(dashboardsUrl(other, '?owner=ann&tags=web'), { token: other.token })).json as { dashboards: unknown[] }).dashboards).toEqual([
        { id: a.id, name: 'a', owner: 'ann' },
      ]);
    } finally {
      await other.close();
    }
  });

  it('DELETE removes (204), then GET and a second DELETE are 404 "Dashboard <id> not found"', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000005';
    await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard('bye') });
    const deleted = await api(dashboardsUrl(server, `/${id}`), { method: 'DELETE', token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectEnvelope(await api(dashboardsUrl(server, `/${id}`), { token }), 404, `Dashboard ${id} not found`);
    expectEnvelope(await api(dashboardsUrl(server, `/${id}`), { method: 'DELETE', token }), 404, `Dashboard ${id} not found`);
  });

  it.each([
    ['a word', 'not-a-uuid'],
    ['encoded dots', '%2e%2e'],
    ['an encoded traversal', '..%2F..%2Fowner.json'],
    ['2000 characters', 'x'.repeat(2000)],
    ['a UUID with a trailing character', '6a98d7bc-abb9-44f8-ae6a-73e68e71812a0'],
  ])('a path id that is %s is the real 400 "Not a valid UUID." on every method', async (_label, raw) => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const headers: Record<string, string> = { authorization: `Api-Token ${token}`, 'content-type': 'application/json' };
      const body = method === 'PUT' ? JSON.stringify(minimalDashboard()) : undefined;
      const response = await rawApi(server.baseUrl, `/e/local/api/config/v1/dashboards/${raw}`, { method, headers, body });
      const envelope = expectEnvelope(response, 400, 'Constraints violated.');
      expect(envelope.error.constraintViolations).toEqual([
        { path: 'id', message: 'Not a valid UUID.', parameterLocation: 'PATH', location: null },
      ]);
    }
  });

  it('a raw ../ in the path never reaches a dashboard: it is an unknown path (404)', async () => {
    const response = await rawApi(server.baseUrl, '/e/local/api/config/v1/dashboards/../../../owner.json', {
      headers: { authorization: `Api-Token ${token}` },
    });
    expectEnvelope(response, 404);
  });

  it('serves paths without /e/{env} from the default environment', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000006';
    await api(`${server.baseUrl}/api/config/v1/dashboards/${id}`, { method: 'PUT', token, body: minimalDashboard('bare') });
    expect((await api(dashboardsUrl(server, `/${id}`), { token })).status).toBe(200);
  });

  it('keeps each dashboard in a readable JSON file named by its id', async () => {
    const id = '11111111-aaaa-4bbb-8ccc-000000000007';
    await api(dashboardsUrl(server, `/${id}`), { method: 'PUT', token, body: minimalDashboard('file') });
    // Acknowledged from the journal; the file follows.
    await server.server.environments.get(DEFAULT_ENVIRONMENT)!.dashboards.flushed();
    const text = await readFile(join(server.dataDir, 'env', 'local', 'dashboards', `${id}.json`), 'utf8');
    expect(text.split('\n').length).toBeGreaterThan(5);
    expect(JSON.parse(text)).toMatchObject({ id, dashboardMetadata: { name: 'file' } });
  });
});

describe('the server option hotBytes', () => {
  it('is each environment store\'s budget for GET bodies kept uncompressed', async () => {
    const tight = await startTestServer({ hotBytes: 1 });
    try {
      for (const name of ['one', 'a longer name']) await api(dashboardsUrl(tight), { method: 'POST', token: tight.token, body: minimalDashboard(name) });
      const store = tight.server.environments.get(DEFAULT_ENVIRONMENT)!.dashboards;
      const [first, second] = store.list().map((stub) => store.get(DashboardId.parse(stub.id))!.served.bytes().length);
      expect(store.hotBytes).toBeGreaterThan(0);
      expect([first, second]).toContain(store.hotBytes);
    } finally {
      await tight.close();
    }
  });
});
