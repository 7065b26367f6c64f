import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../../src/schema/ids.js';
import type { Scope } from '../../src/schema/scopes.js';
import { api, dashboardsUrl, expectEnvelope, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

const ID = '22222222-aaaa-4bbb-8ccc-000000000001';

interface Endpoint {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly scope: Scope;
}

const ENDPOINTS: Endpoint[] = [
  { name: 'list', method: 'GET', path: '/api/config/v1/dashboards', scope: 'ReadConfig' },
  { name: 'get', method: 'GET', path: `/api/config/v1/dashboards/${ID}`, scope: 'ReadConfig' },
  { name: 'create', method: 'POST', path: '/api/config/v1/dashboards', body: minimalDashboard(), scope: 'WriteConfig' },
  { name: 'replace', method: 'PUT', path: `/api/config/v1/dashboards/${ID}`, body: minimalDashboard(), scope: 'WriteConfig' },
  { name: 'delete', method: 'DELETE', path: `/api/config/v1/dashboards/${ID}`, scope: 'WriteConfig' },
  { name: 'validate', method: 'POST', path: '/api/config/v1/dashboards/validator', body: minimalDashboard(), scope: 'WriteConfig' },
  { name: 'validate one', method: 'POST', path: `/api/config/v1/dashboards/${ID}/validator`, body: minimalDashboard(), scope: 'WriteConfig' },
  { name: 'installer', method: 'GET', path: '/api/v1/deployment/installer/agent/unix/default/latest?arch=x86', scope: 'InstallerDownload' },
  { name: 'events feed', method: 'GET', path: '/api/v1/events', scope: 'DataExport' },
  { name: 'metainfo', method: 'GET', path: '/api/v1/deployment/installer/agent/unix/default/latest/metainfo', scope: 'InstallerDownload' },
];

const DESCRIPTIONS: Record<Scope, string> = {
  ReadConfig: 'Read configuration',
  WriteConfig: 'Write configuration',
  DataExport: 'Access problem and event feed, metrics, and topology',
  InstallerDownload: 'PaaS integration - Installer download',
};
const ALL_SCOPES: Scope[] = ['ReadConfig', 'WriteConfig', 'DataExport', 'InstallerDownload'];

describe('tokens and scopes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'InstallerDownload'] });
    await api(dashboardsUrl(server, `/${ID}`), { method: 'PUT', token: server.token, body: minimalDashboard() });
  });
  afterAll(async () => server.close());

  const call = (endpoint: Endpoint, headers: Record<string, string>) =>
    api(`${server.url}${endpoint.path}`, { method: endpoint.method, body: endpoint.body, headers });

  describe.each(ENDPOINTS)('$name ($method, needs $scope)', (endpoint) => {
    it('is a 401 "Missing authorization parameter." without a token', async () => {
      const response = await call(endpoint, {});
      expectEnvelope(response, 401, 'Missing authorization parameter.');
      expect(response.headers.get('www-authenticate')).toBe('Api-Token realm="dashcd"');
    });

    it('is a 401 "Token Authentication failed" for unknown, malformed or wrong-length tokens', async () => {
      const wrong = ['dt0c01.AAAAAAAAAAAAAAAAAAAAAAAA.' + 'A'.repeat(64), 'short', 'dt0c01.' + 'x'.repeat(500)];
      for (const token of wrong) expectEnvelope(await call(endpoint, { authorization: `Api-Token ${token}` }), 401, 'Token Authentication failed');
    });

    it('is a 401 for another authorization scheme', async () => {
      expectEnvelope(await call(endpoint, { authorization: `Bearer ${server.token}` }), 401, /^Token Authentication failed/);
    });

    it(`is a 403 naming ${endpoint.scope} for a token with every other scope`, async () => {
      const token = server.tokenFor(ALL_SCOPES.filter((scope) => scope !== endpoint.scope));
      const response = await call(endpoint, { authorization: `Api-Token ${token}` });
      expectEnvelope(response, 403, `Token is missing required scope. Use one of: ${endpoint.scope} (${DESCRIPTIONS[endpoint.scope]})`);
    });

    it(`succeeds with a token that has only ${endpoint.scope}`, async () => {
      const token = server.tokenFor([endpoint.scope]);
      const response = await call(endpoint, { authorization: `Api-Token ${token}` });
      expect(response.status, response.text).toBeLessThan(300);
    });
  });

  it('accepts the scheme name in any case', async () => {
    const response = await call(ENDPOINTS[0]!, { authorization: `api-token ${server.token}` });
    expect(response.status).toBe(200);
  });

  it('refuses a token in the query string everywhere but the installer download', async () => {
    for (const endpoint of ENDPOINTS.filter((e) => e.name !== 'installer')) {
      const separator = endpoint.path.includes('?') ? '&' : '?';
      const response = await api(`${server.url}${endpoint.path}${separator}Api-Token=${server.token}`, {
        method: endpoint.method,
        body: endpoint.body,
      });
      expectEnvelope(response, 401, 'Missing authorization parameter.');
    }
  });

  it('a token of one environment is unknown in another', async () => {
    const other = await server.server.environments.ensure(EnvironmentId.parse('other'));
    const otherToken = other.tokens.addEphemeral(['ReadConfig']);
    expect((await api(`${server.baseUrl}/e/other/api/config/v1/dashboards`, { token: otherToken })).status).toBe(200);
    const response = await api(`${server.baseUrl}/e/other/api/config/v1/dashboards`, { token: server.token });
    expectEnvelope(response, 401, 'Token Authentication failed');
  });

  it('a revoked token is refused from the next request on', async () => {
    const tokens = server.server.environments.get(DEFAULT_ENVIRONMENT)!.tokens;
    const { token, info } = await tokens.create({ name: 'short-lived', scopes: ['ReadConfig'] });
    expect((await api(dashboardsUrl(server), { token })).status).toBe(200);
    await tokens.revoke(info.id);
    expectEnvelope(await api(dashboardsUrl(server), { token }), 401, 'Token Authentication failed');
  });
});
