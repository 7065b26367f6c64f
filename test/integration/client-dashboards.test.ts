import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/api-client.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { CORPUS_DIR } from '../helpers/corpus.js';

const TOKEN = 'dashboards-test-token-123';
const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';
const CORPUS = CORPUS_DIR;
const realDashboardText = readFileSync(`${CORPUS}/dashboards/dt-perform2022__appOverview.json`, 'utf8');
const realListText = readFileSync(`${CORPUS}/dashboard-lists/monaco__download-test-__LIST.json`, 'utf8');
const eventsText = readFileSync(`${CORPUS}/events/dt-openapi-env-v1-1.254__EventQueryResult-example.json`, 'utf8');
const violation = { path: 'tiles[0].bounds', message: 'must not be null', parameterLocation: 'PAYLOAD_BODY', location: null };

let server: FaultServer;
let client: ApiClient;
let base: string;

beforeAll(async () => {
  server = await startFaultServer();
  base = `${server.url}/e/local`;
  client = createApiClient({ baseUrl: `${base}/`, token: TOKEN, retry: { maxAttempts: 1 } });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

beforeEach(() => {
  server.requests.length = 0;
});

const last = () => server.requests.at(-1);

describe('dashboards methods map statuses to results', () => {
  it('list sends owner and repeated tags and returns the stubs as sent', async () => {
    server.script({ status: 200, body: realListText });
    const stubs = await client.dashboards.list({ owner: 'me@example.com', tags: ['managed-by:dashcd', 'team a'] });
    expect(stubs).toEqual((JSON.parse(realListText) as { dashboards: unknown[] }).dashboards);
    expect(last()?.path).toBe('/e/local/api/config/v1/dashboards');
    expect(last()?.query.get('owner')).toBe('me@example.com');
    expect(last()?.query.getAll('tags')).toEqual(['managed-by:dashcd', 'team a']);
  });

  it('get returns the server JSON with its own key order, not a schema rebuild', async () => {
    server.script({ status: 200, body: realDashboardText });
    const dashboard = await client.dashboards.get(ID);
    expect(JSON.stringify(dashboard)).toBe(JSON.stringify(JSON.parse(realDashboardText)));
    expect(last()?.path).toBe(`/e/local/api/config/v1/dashboards/${ID}`);
  });

  it('getText gives the server text as sent, and parse() the value get gives; undefined on 404', async () => {
    server.script({ status: 200, body: realDashboardText });
    const live = await client.dashboards.getText(ID);
    expect(live?.text).toBe(realDashboardText);
    expect(JSON.stringify(live?.parse())).toBe(JSON.stringify(JSON.parse(realDashboardText)));
    server.script({ status: 404, body: { error: { code: 404, message: `Dashboard ${ID} not found` } } });
    expect(await client.dashboards.getText(ID)).toBeUndefined();
  });

  it('get is undefined on 404', async () => {
    server.script({ status: 404, body: { error: { code: 404, message: `Dashboard ${ID} not found` } } });
    expect(await client.dashboards.get(ID)).toBeUndefined();
  });

  it('get escapes the id into one path segment', async () => {
    server.script({ status: 404, body: { error: { code: 404, message: 'not found' } } });
    await client.dashboards.get('../tokens?x=1');
    expect(last()?.path).toBe('/e/local/api/config/v1/dashboards/..%2Ftokens%3Fx%3D1');
  });

  it('create POSTs the body and returns the created id', async () => {
    server.script({ status: 201, body: { id: ID, name: 'New' } });
    expect(await client.dashboards.create({ dashboardMetadata: { name: 'New', owner: 'me' }, tiles: [] })).toEqual({ id: ID, name: 'New' });
    expect(last()?.method).toBe('POST');
    expect(JSON.parse(last()?.body ?? '')).toEqual({ dashboardMetadata: { name: 'New', owner: 'me' }, tiles: [] });
  });

  it('put is created on 201 and updated on 204', async () => {
    server.script({ status: 201 }, { status: 204 });
    expect(await client.dashboards.put(ID, { id: ID })).toBe('created');
    expect(await client.dashboards.put(ID, { id: ID })).toBe('updated');
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      `PUT /e/local/api/config/v1/dashboards/${ID}`,
      `PUT /e/local/api/config/v1/dashboards/${ID}`,
    ]);
  });

  it('put fails with the status on anything else', async () => {
    server.script({ status: 409, body: { error: { code: 409, message: 'conflict' } } });
    await expect(client.dashboards.put(ID, {})).rejects.toMatchObject({ status: 409, method: 'PUT' });
  });

  it('remove is true on 204 and false on 404', async () => {
    server.script({ status: 204 }, { status: 404, body: { error: { code: 404, message: 'gone' } } });
    expect(await client.dashboards.remove(ID)).toBe(true);
    expect(await client.dashboards.remove(ID)).toBe(false);
    expect(last()?.method).toBe('DELETE');
  });

  it('validate is valid on 204 and lists the violations of a 400', async () => {
    server.script(
      { status: 204, match: { path: '/e/local/api/config/v1/dashboards/validator' } },
      {
        status: 400,
        body: { error: { code: 400, message: 'Constraints violated.', constraintViolations: [violation] } },
        match: { path: `/e/local/api/config/v1/dashboards/${ID}/validator` },
      },
    );
    expect(await client.dashboards.validate({})).toEqual({ valid: true });
    expect(await client.dashboards.validate({ id: ID }, ID)).toEqual({
      valid: false,
      message: 'Constraints violated.',
      violations: [violation],
    });
    expect(server.pending()).toBe(0);
  });

  it('validate throws on statuses that are not a verdict', async () => {
    server.script({ status: 401, body: { error: { code: 401, message: 'nope' } } });
    await expect(client.dashboards.validate({})).rejects.toMatchObject({ code: 'API_ERROR', status: 401 });
  });
});

describe('events and raw requests', () => {
  it('fetchPageText returns the page text untouched, so big event ids keep their digits', async () => {
    const page = '{"events":[{"eventId":-4314211936928920170,"id":"-4314211936928920170_1654148872269"}],"nextCursor":null}';
    server.script({ status: 200, body: page });
    const query = new URLSearchParams({ from: '0', eventType: 'CUSTOM_INFO' });
    expect(await client.events.fetchPageText(query)).toBe(page);
    expect(last()?.path).toBe('/e/local/api/v1/events');
    expect(last()?.query.toString()).toBe('from=0&eventType=CUSTOM_INFO');
  });

  it('fetchPageText accepts the spec example page and rejects a non-object body', async () => {
    server.script({ status: 200, body: eventsText }, { status: 200, body: '[]' });
    expect(await client.events.fetchPageText(new URLSearchParams())).toBe(eventsText);
    await expect(client.events.fetchPageText(new URLSearchParams())).rejects.toMatchObject({ code: 'UNEXPECTED_RESPONSE' });
  });

  it('fetchPageText stops a slow page when its own signal aborts', async () => {
    server.script({ status: 200, body: '{}', delayMs: 2_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('window abandoned')), 50);
    const started = Date.now();
    await expect(client.events.fetchPageText(new URLSearchParams(), controller.signal)).rejects.toThrow('window abandoned');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('requestText returns any status with headers and text, below the environment root', async () => {
    server.script({ status: 418, headers: { 'x-thing': 'a' }, body: 'teapot' });
    const response = await client.requestText('GET', '/api/v1/whatever', { query: new URLSearchParams({ a: '1' }) });
    expect(response).toMatchObject({ status: 418, text: 'teapot', method: 'GET', url: `${base}/api/v1/whatever?a=1`, attempts: 1 });
    expect(response.headers['x-thing']).toBe('a');
  });

  it('requestText sends a string body as already-encoded JSON', async () => {
    server.script({ status: 204 });
    await client.requestText('PUT', '/api/config/v1/dashboards/x', { body: '{"a":1}' });
    expect(last()?.body).toBe('{"a":1}');
  });

  it('exposes the normalised base URL', () => {
    expect(client.baseUrl).toBe(base);
  });
});
