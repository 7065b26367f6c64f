import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/api-client.js';
import { isAuthError, isUnreachable } from '../../src/client/errors.js';
import { minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';

const CORPUS_DASHBOARD = join(CORPUS_DASHBOARDS_DIR, 'dt-perform2022__appOverview.json');
const ID = '0f0e0d0c-1111-4444-8888-123456789abc';

let server: TestServer;
let client: ApiClient;

beforeAll(async () => {
  server = await startTestServer();
  client = createApiClient({ baseUrl: server.url, token: server.token, retry: { maxAttempts: 2, baseDelayMs: 5 } });
});

afterAll(async () => {
  await client.close();
  await server.close();
});

describe('client against the embedded server', () => {
  it('creates on PUT, then updates, and reads back what it wrote', async () => {
    const dashboardMetadata = { name: 'embedded', owner: 'tester', tags: ['managed-by:dashcd', 'client-test'] };
    const body = { id: ID, ...minimalDashboard('embedded'), dashboardMetadata };
    expect(await client.dashboards.put(ID, body)).toBe('created');
    expect(await client.dashboards.put(ID, { ...body, dashboardMetadata: { ...dashboardMetadata, name: 'embedded v2' } })).toBe('updated');
    const live = await client.dashboards.get(ID);
    expect(live).toMatchObject({ id: ID, dashboardMetadata: { name: 'embedded v2', owner: 'tester' }, tiles: [] });
  });

  it('lists stubs, filtered by owner and by all given tags', async () => {
    const all = await client.dashboards.list();
    expect(all).toContainEqual(expect.objectContaining({ id: ID, name: 'embedded v2', owner: 'tester' }));
    const tagged = await client.dashboards.list({ tags: ['managed-by:dashcd', 'client-test'] });
    expect(tagged.map((d) => d.id)).toContain(ID);
    expect(await client.dashboards.list({ tags: ['managed-by:dashcd', 'no-such-tag'] })).toEqual([]);
    expect(await client.dashboards.list({ owner: 'nobody' })).toEqual([]);
  });

  it('creates with POST and gets an id back', async () => {
    const created = await client.dashboards.create(minimalDashboard('posted'));
    expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.dashboards.get(created.id)).toMatchObject({ dashboardMetadata: { name: 'posted' } });
  });

  it('round-trips a real corpus dashboard with its key order', async () => {
    const id = '0f0e0d0c-2222-4444-8888-123456789abc';
    const corpus = JSON.parse(readFileSync(CORPUS_DASHBOARD, 'utf8')) as Record<string, unknown>;
    const { metadata: _metadata, ...rest } = corpus;
    await client.dashboards.put(id, { ...rest, id });
    const live = (await client.dashboards.get(id)) as Record<string, unknown>;
    expect(Object.keys(live.dashboardMetadata as object)).toEqual(Object.keys(corpus.dashboardMetadata as object));
    expect(live.tiles).toEqual(corpus.tiles);
  });

  it('validates: a good body is valid, a body without owner lists the violation', async () => {
    expect(await client.dashboards.validate(minimalDashboard('ok'))).toEqual({ valid: true });
    const bad = { id: ID, dashboardMetadata: { name: 'no owner' }, tiles: [] };
    const outcome = await client.dashboards.validate(bad, ID);
    expect(outcome.valid).toBe(false);
    if (outcome.valid) return;
    expect(outcome.message).toBe('Constraints violated.');
    expect(outcome.violations.map((v) => v.path)).toContain('dashboardMetadata.owner');
  });

  it('removes once, then reports the dashboard already gone', async () => {
    expect(await client.dashboards.remove(ID)).toBe(true);
    expect(await client.dashboards.remove(ID)).toBe(false);
    expect(await client.dashboards.get(ID)).toBeUndefined();
  });

  it('explains a rejected token and a missing scope', async () => {
    const wrong = createApiClient({ baseUrl: server.url, token: 'not-a-real-token-000' });
    const readOnly = createApiClient({ baseUrl: server.url, token: server.tokenFor(['ReadConfig']) });
    try {
      const rejected = await wrong.dashboards.list().catch((e: unknown) => e);
      expect(isAuthError(rejected)).toBe(true);
      expect((rejected as Error).message).toMatch(new RegExp(`^401 from ${server.url}: token rejected.* — check DT_API_TOKEN$`));
      expect((rejected as Error).message).not.toContain('not-a-real-token-000');
      const forbidden = await readOnly.dashboards.put(ID, { id: ID, ...minimalDashboard() }).catch((e: unknown) => e);
      expect(isAuthError(forbidden)).toBe(true);
      expect((forbidden as Error).message).toBe(
        `403 from ${server.url}: token is missing scope WriteConfig (Write configuration) — put a token with it in DT_API_TOKEN`,
      );
    } finally {
      await wrong.close();
      await readOnly.close();
    }
  });

  it('reports the target unreachable once it is gone', async () => {
    const doomed = await startTestServer();
    const lonely = createApiClient({ baseUrl: doomed.url, token: doomed.token, retry: { maxAttempts: 2, baseDelayMs: 5 } });
    try {
      await lonely.dashboards.list();
      await doomed.close();
      const error = await lonely.dashboards.list().catch((e: unknown) => e);
      expect(isUnreachable(error)).toBe(true);
      expect((error as Error).message).toContain(`could not reach ${doomed.url}: ECONNREFUSED`);
    } finally {
      await lonely.close();
    }
  });
});
