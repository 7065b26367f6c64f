import type { PruneLimit } from '../../../src/plan/prune-guard.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPlan, countOutcomes, deletesOf, writesOf } from '../../../src/apply/apply-plan.js';
import { createApiClient, type ApiClient } from '../../../src/client/api-client.js';
import { ApiError } from '../../../src/client/errors.js';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { kindOf } from '../../../src/kinds/kinds.js';
import { silentLogger } from '../../../src/lib/logger.js';
import { assemblePlan, type DesiredInput, type Plan } from '../../../src/plan/build-plan.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { planAgainstLive } from '../../../src/reconcile/plan-against-live.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { startFaultServer, type FaultServer } from '../../helpers/fault-server.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const ID = {
  a: '0d1a0000-0000-4000-8000-00000000000a',
  b: '0d1a0000-0000-4000-8000-00000000000b',
  c: '0d1a0000-0000-4000-8000-00000000000c',
  orphan: '0d1a0000-0000-4000-8000-0000000000f0',
  foreign: '0d1a0000-0000-4000-8000-0000000000f1',
} as const;

function dashboard(name: string, tileName = 'Notes', tags?: string[]): Dashboard {
  return {
    dashboardMetadata: { name, owner: 'team@example.com', ...(tags ? { tags } : {}) },
    tiles: [{ name: tileName, tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: '# hi' }],
  };
}

const desired = (key: keyof typeof ID, body: Dashboard): DesiredInput => ({ id: ID[key], file: `dashboards/${key}.yaml`, name: body.dashboardMetadata.name, body });

let server: TestServer;
let proxy: FaultServer;
let api: ApiClient;
beforeEach(async () => {
  server = await startTestServer();
  proxy = await startFaultServer({ upstream: server.baseUrl });
  // Fast retries: these tests are about what apply does with the outcome, not about the backoff itself.
  api = createApiClient({ baseUrl: `${proxy.url}/e/local`, token: server.token, retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });
});
afterEach(async () => {
  await api.close();
  await proxy.close();
  await server.close();
});

async function planFor(items: DesiredInput[], prune?: PruneLimit): Promise<Plan> {
  const rules = { ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards };
  const live = await planAgainstLive(items, { api, rules, concurrency: 4, withOwned: true });
  return assemblePlan({ desired: items, liveOwned: live.owned, ...rules, target: 'test', ...(prune ? { prune } : {}) }, live.changes);
}

const deps = () => ({ api, kinds: kindOf, log: silentLogger(), concurrency: 4 });
const writesSeen = (method = 'PUT') => proxy.requests.filter((r) => r.method === method && !r.path.endsWith('/validator')).map((r) => r.path.split('/').at(-1));

describe('applyPlan', () => {
  it('writes only create and update changes; an unchanged dashboard gets no write', async () => {
    await api.dashboards.put(ID.a, { id: ID.a, ...dashboard('A', 'Notes', [DEFAULT_OWNERSHIP_TAG]) });
    await api.dashboards.put(ID.c, { id: ID.c, ...dashboard('C', 'Notes', [DEFAULT_OWNERSHIP_TAG]) });
    const plan = await planFor([desired('a', dashboard('A')), desired('b', dashboard('B')), desired('c', dashboard('C', 'Renamed'))]);
    expect(writesOf(plan).map((c) => [c.action, c.id])).toEqual([['create', ID.b], ['update', ID.c]]);
    proxy.requests.length = 0;

    const result = await applyPlan(plan, deps());

    expect(result.kind).toBe('applied');
    if (result.kind !== 'applied') return;
    expect(result.unchanged).toBe(1);
    expect(result.outcomes.map((o) => [o.action, o.id, o.status])).toEqual([['create', ID.b, 'applied'], ['update', ID.c, 'applied']]);
    expect(writesSeen().sort()).toEqual([ID.b, ID.c].sort());
    const written = await api.dashboards.get(ID.c);
    expect(written?.tiles[0]?.name).toBe('Renamed');
    expect(written?.dashboardMetadata.tags).toEqual([DEFAULT_OWNERSHIP_TAG]);
  });

  it('writes nothing at all when the target validator rejects one dashboard', async () => {
    const broken = { ...dashboard('Broken'), tiles: [{ name: 'x', tileType: 'NOT_A_TILE', bounds: {} }] } as unknown as Dashboard;
    const plan = await planFor([desired('a', dashboard('A')), desired('b', broken)]);

    const result = await applyPlan(plan, deps());

    expect(result.kind).toBe('rejected');
    if (result.kind !== 'rejected') return;
    expect(result.invalid).toHaveLength(1);
    expect(result.invalid[0]).toMatchObject({ id: ID.b, file: 'dashboards/b.yaml' });
    expect(result.invalid[0]?.violations.map((v) => v.path).join()).toContain('tiles[0].tileType');
    expect(writesSeen()).toEqual([]);
    expect(await api.dashboards.get(ID.a)).toBeUndefined();
  });

  it("in skip-invalid mode writes the valid dashboards and reports the rejected one (the daemon's mode)", async () => {
    const broken = { ...dashboard('Broken'), tiles: [{ name: 'x', tileType: 'NOT_A_TILE', bounds: {} }] } as unknown as Dashboard;
    const plan = await planFor([desired('a', dashboard('A')), desired('b', broken)]);

    const result = await applyPlan(plan, { ...deps(), validation: 'skip-invalid' });

    expect(result.kind).toBe('applied');
    if (result.kind !== 'applied') return;
    expect(result.skippedInvalid.map((v) => v.id)).toEqual([ID.b]);
    expect(writesSeen()).toEqual([ID.a]);
  });

  it('reports a dashboard whose write keeps failing and still applies the others', async () => {
    const failing = { status: 503, body: { error: { code: 503, message: 'busy' } }, match: { method: 'PUT', path: `/e/local/api/config/v1/dashboards/${ID.b}` } };
    proxy.script(failing, failing, failing);
    const plan = await planFor([desired('a', dashboard('A')), desired('b', dashboard('B')), desired('c', dashboard('C'))]);

    const result = await applyPlan(plan, deps());

    if (result.kind !== 'applied') throw new Error('expected applied');
    const failed = result.outcomes.filter((o) => o.status === 'failed');
    expect(failed.map((o) => o.id)).toEqual([ID.b]);
    expect(failed[0]).toMatchObject({ file: 'dashboards/b.yaml' });
    expect(countOutcomes(result.outcomes)).toEqual({ created: 2, adopted: 0, updated: 0, deleted: 0, failed: 1 });
    expect(proxy.pending()).toBe(0);
    expect(await api.dashboards.get(ID.a)).toBeDefined();
    expect(await api.dashboards.get(ID.c)).toBeDefined();
  });

  it('deletes owned orphans only when the plan was built with pruning, and never a dashboard without the ownership tag', async () => {
    await api.dashboards.put(ID.orphan, { id: ID.orphan, ...dashboard('Old', 'Notes', [DEFAULT_OWNERSHIP_TAG]) });
    await api.dashboards.put(ID.foreign, { id: ID.foreign, ...dashboard('Made by hand') });
    const plan = await planFor([desired('a', dashboard('A'))]);
    expect(plan.changes.filter((c) => c.action === 'orphan').map((o) => o.id)).toEqual([ID.orphan]);
    expect(deletesOf(plan)).toEqual([]);

    const first = await applyPlan(plan, deps());
    if (first.kind !== 'applied') throw new Error('expected applied');
    expect(first.outcomes.map((o) => o.action)).toEqual(['create']);
    expect(await api.dashboards.get(ID.orphan)).toBeDefined();

    const refused = await planFor([desired('a', dashboard('A'))], { maxDelete: 0, from: 'flag' });
    expect(deletesOf(refused)).toEqual([]);
    const pruned = await applyPlan(await planFor([desired('a', dashboard('A'))], { maxDelete: 5, from: 'flag' }), deps());
    if (pruned.kind !== 'applied') throw new Error('expected applied');
    expect(pruned.outcomes.map((o) => [o.action, o.id, o.status])).toEqual([['delete', ID.orphan, 'deleted']]);
    expect(await api.dashboards.get(ID.orphan)).toBeUndefined();
    expect(await api.dashboards.get(ID.foreign)).toBeDefined();
  });

  it('reports what the target did when another writer got there first: a planned create it answered 204 is an update, a delete it answered 404 counts nowhere', async () => {
    await api.dashboards.put(ID.orphan, { id: ID.orphan, ...dashboard('Old', 'Notes', [DEFAULT_OWNERSHIP_TAG]) });
    const plan = await planFor([desired('a', dashboard('A')), desired('b', dashboard('B'))], { maxDelete: 5, from: 'flag' });
    expect(plan.summary).toMatchObject({ create: 2, delete: 1 });
    // Another apply, between this plan and its writes: creates A and deletes the orphan.
    await api.dashboards.put(ID.a, { id: ID.a, ...dashboard('A', 'Notes', [DEFAULT_OWNERSHIP_TAG]) });
    await api.dashboards.remove(ID.orphan);

    const result = await applyPlan(plan, deps());

    if (result.kind !== 'applied') throw new Error('expected applied');
    expect(result.outcomes.map((o) => [o.action, o.id, o.status])).toEqual([['update', ID.a, 'applied'], ['create', ID.b, 'applied'], ['delete', ID.orphan, 'deleted']]);
    expect(countOutcomes(result.outcomes)).toEqual({ created: 1, adopted: 0, updated: 1, deleted: 0, failed: 0 });
  });

  it('stops at a rejected token instead of reporting every dashboard as failed', async () => {
    const forbidden = { status: 403, body: { error: { code: 403, message: 'Token is missing required scope. Use one of: WriteConfig' } }, match: { method: 'PUT' } };
    proxy.script(...Array.from({ length: 6 }, () => forbidden));
    const plan = await planFor(['a', 'b', 'c'].map((k) => desired(k as keyof typeof ID, dashboard(k))));

    await expect(applyPlan(plan, { ...deps(), concurrency: 1 })).rejects.toBeInstanceOf(ApiError);
    expect(writesSeen()).toHaveLength(1);
  });
});
