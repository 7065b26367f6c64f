import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { createApiClient, type ApiClient } from '../../../src/client/api-client.js';
import { buildPlan, type DesiredInput } from '../../../src/plan/build-plan.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { planAgainstLive } from '../../../src/reconcile/plan-against-live.js';
import type { Dashboard, LiveDashboard } from '../../../src/schema/dashboard.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const rules = { ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards };

function dashboard(name: string, markdown: string, tags: string[] = [DEFAULT_OWNERSHIP_TAG]): Dashboard {
  return {
    dashboardMetadata: { name, owner: 'team@example.com', tags },
    tiles: [{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown }],
  };
}

const id = (n: number): string => `0d1a0000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const desired = (n: number, body: Dashboard): DesiredInput => ({ id: id(n), file: `dashboards/d${n}.yaml`, name: body.dashboardMetadata.name, body });

let server: TestServer;
let api: ApiClient;
beforeEach(async () => {
  server = await startTestServer();
  api = createApiClient({ baseUrl: `${server.baseUrl}/e/local`, token: server.token });
});
afterEach(async () => {
  await api.close();
  await server.close();
});

describe('planAgainstLive', () => {
  it('gives each file the change buildPlan gives it over the same live dashboards, in the desired order, with the owned list', async () => {
    // 1 unchanged, 2 changed, 3 missing (create), 4 live without the tag (adopt), 9 owned and claimed by no file.
    await api.dashboards.put(id(1), { id: id(1), ...dashboard('One', 'same') });
    await api.dashboards.put(id(2), { id: id(2), ...dashboard('Two', 'old') });
    await api.dashboards.put(id(4), { id: id(4), ...dashboard('Four', 'same', []) });
    await api.dashboards.put(id(9), { id: id(9), ...dashboard('Nine', 'left over') });
    const items = [desired(4, dashboard('Four', 'same')), desired(3, dashboard('Three', 'new')), desired(2, dashboard('Two', 'new')), desired(1, dashboard('One', 'same'))];

    const streamed = await planAgainstLive(items, { api, rules, concurrency: 2, withOwned: true });

    expect(streamed.changes.map((c) => [c.action, c.id])).toEqual([['adopt', id(4)], ['create', id(3)], ['update', id(2)], ['unchanged', id(1)]]);
    expect(streamed.owned.map((o) => o.id).sort()).toEqual([id(1), id(2), id(9)]);
    const live = new Map<string, LiveDashboard>();
    for (const n of [1, 2, 4]) live.set(id(n), (await api.dashboards.get(id(n))) as LiveDashboard);
    const whole = buildPlan({ desired: items, live, liveOwned: streamed.owned, ...rules, target: 't' });
    expect(streamed.changes).toEqual(items.map((d) => whole.changes.find((c) => c.id === d.id)));
  });

  it('asks for the owned list only when told to', async () => {
    await api.dashboards.put(id(9), { id: id(9), ...dashboard('Nine', 'left over') });
    expect((await planAgainstLive([], { api, rules, concurrency: 2, withOwned: false })).owned).toEqual([]);
  });

  it('throws when aborted, instead of calling the dashboards it never read new', async () => {
    await api.dashboards.put(id(1), { id: id(1), ...dashboard('One', 'same') });
    const controller = new AbortController();
    controller.abort(new Error('pass cancelled'));
    const run = planAgainstLive([desired(1, dashboard('One', 'same'))], { api, rules, concurrency: 2, withOwned: false, signal: controller.signal });
    await expect(run).rejects.toThrow('pass cancelled');
  });
});
