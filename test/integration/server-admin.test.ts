import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOwner } from '../../src/server/data-dir.js';
import { api, expectEnvelope, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

describe('admin API', () => {
  let server: TestServer;
  let admin: Record<string, string>;
  let base: string;
  beforeAll(async () => {
    server = await startTestServer();
    const owner = await readOwner(server.dataDir);
    expect(owner?.url).toBe(server.baseUrl);
    admin = { authorization: `Bearer ${owner!.adminKey}` };
    base = `${server.baseUrl}/_dashcd/admin/env`;
  });
  afterAll(async () => server.close());

  it('refuses requests without the admin key, or with a wrong one, with 401 envelopes', async () => {
    expectEnvelope(await api(`${base}/local/tokens`), 401, 'Missing authorization parameter.');
    expectEnvelope(await api(`${base}/local/tokens`, { headers: { authorization: 'Bearer wrong' } }), 401, 'Admin key rejected.');
    expectEnvelope(await api(`${base}/local/tokens`, { headers: { authorization: `Api-Token ${server.token}` } }), 401, 'Admin key rejected.');
  });

  it('lists tokens without secrets', async () => {
    const response = await api(`${base}/local/tokens`, { headers: admin });
    expect(response.status).toBe(200);
    const { tokens } = response.json as { tokens: Array<Record<string, unknown>> };
    expect(tokens.map((t) => t['name'])).toContain('test');
    expect(response.text).not.toContain(server.token.split('.')[2]!);
  });

  it('creates a token in a new environment, which is served at once', async () => {
    const created = await api(`${base}/staging/tokens`, { method: 'POST', headers: admin, body: { name: 'ci', scopes: ['ReadConfig', 'WriteConfig'] } });
    expect(created.status).toBe(201);
    const { token, info } = created.json as { token: string; info: { id: string; name: string; scopes: string[] } };
    expect(token).toMatch(/^dt0c01\.[A-Z2-7]{24}\.[A-Z2-7]{64}$/);
    expect(info).toMatchObject({ name: 'ci', scopes: ['ReadConfig', 'WriteConfig'] });
    const url = `${server.baseUrl}/e/staging/api/config/v1/dashboards`;
    expect((await api(url, { method: 'POST', token, body: minimalDashboard('staged') })).status).toBe(201);
    expect(((await api(url, { token })).json as { dashboards: unknown[] }).dashboards).toHaveLength(1);
    expect(((await api(`${server.url}/api/config/v1/dashboards`, { token: server.token })).json as { dashboards: unknown[] }).dashboards).toHaveLength(0);
  });

  it('refuses invalid token input and environment ids with 400 envelopes', async () => {
    const bad = await api(`${base}/local/tokens`, { method: 'POST', headers: admin, body: { name: '', scopes: ['Nope'] } });
    const envelope = expectEnvelope(bad, 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations?.map((v) => v.path).sort()).toEqual(['name', 'scopes[0]']);
    const badEnv = await api(`${base}/Not_Valid/tokens`, { method: 'POST', headers: admin, body: { name: 'x', scopes: ['ReadConfig'] } });
    expect(expectEnvelope(badEnv, 400).error.constraintViolations?.[0]).toMatchObject({ path: 'env', parameterLocation: 'PATH' });
  });

  it('revokes by id or name (204), then 404; the token stops working at once', async () => {
    const created = await api(`${base}/local/tokens`, { method: 'POST', headers: admin, body: { name: 'temp token', scopes: ['ReadConfig'] } });
    const { token } = created.json as { token: string };
    expect((await api(`${server.url}/api/config/v1/dashboards`, { token })).status).toBe(200);
    expect((await api(`${base}/local/tokens/temp%20token`, { method: 'DELETE', headers: admin })).status).toBe(204);
    expectEnvelope(await api(`${server.url}/api/config/v1/dashboards`, { token }), 401);
    expectEnvelope(await api(`${base}/local/tokens/temp%20token`, { method: 'DELETE', headers: admin }), 404, 'Token temp token not found');
  });

  it('refuses to revoke by a name that several tokens share (400), and revokes by id', async () => {
    const make = async () =>
      ((await api(`${base}/local/tokens`, { method: 'POST', headers: admin, body: { name: 'twin', scopes: ['ReadConfig'] } })).json as {
        info: { id: string };
      }).info.id;
    const first = await make();
    await make();
    expectEnvelope(await api(`${base}/local/tokens/twin`, { method: 'DELETE', headers: admin }), 400, /revoke by id/);
    expect((await api(`${base}/local/tokens/${first}`, { method: 'DELETE', headers: admin })).status).toBe(204);
  });

  it('answers 404 for environments that do not exist, 405 for other methods', async () => {
    expectEnvelope(await api(`${base}/nowhere/tokens`, { headers: admin }), 404, 'Environment nowhere not found');
    expectEnvelope(await api(`${base}/nowhere/tokens/x`, { method: 'DELETE', headers: admin }), 404);
    const put = await api(`${base}/local/tokens`, { method: 'PUT', headers: admin, body: {} });
    expectEnvelope(put, 405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
  });

  it('hands out a session token with every scope for CLI commands, and a platform token for the Document service', async () => {
    const response = await api(`${base}/local/session`, { method: 'POST', headers: admin });
    expect(response.status).toBe(201);
    const { token, platformToken } = response.json as { token: string; platformToken: string };
    expect((await api(`${server.url}/api/config/v1/dashboards`, { method: 'POST', token, body: minimalDashboard() })).status).toBe(201);
    const documents = await api(`${server.url}/platform/document/v1/documents`, { headers: { authorization: `Bearer ${platformToken}` } });
    expect(documents.status).toBe(200);
    expect((await api(`${server.url}/platform/document/v1/documents`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  });
});
