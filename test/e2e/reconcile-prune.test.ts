import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { startProxiedTarget, type ProxiedTarget } from '../helpers/proxied-target.js';

const NAMES = ['alpha', 'beta', 'gamma', 'delta'] as const;
const HAND_MADE_ID = '9e9e9e9e-0000-4000-8000-000000000001';

const dashboardYaml = (name: string): string => markdownDashboard({ name, owner: 'team@example.com', markdown: name });

let target: ProxiedTarget;
let project: Project;
beforeEach(async () => {
  target = await startProxiedTarget();
  project = await createProject(Object.fromEntries(NAMES.map((n) => [`dashboards/${n}.yaml`, dashboardYaml(n)])));
  // Created through the API, without the ownership tag: prune must never touch it.
  await target.api.dashboards.put(HAND_MADE_ID, { id: HAND_MADE_ID, dashboardMetadata: { name: 'Hand made', owner: 'someone' }, tiles: [] });
});
afterEach(async () => {
  await target.close();
  await project.cleanup();
});

const dashcd = (...argv: string[]): Promise<CliResult> =>
  runDashcd(argv, { cwd: project.root, env: target.env });

async function liveNames(): Promise<string[]> {
  return (await target.api.dashboards.list()).map((d) => d.name ?? '').sort();
}

const deletes = (): number => target.proxy.requests.filter((r) => r.method === 'DELETE').length;

async function applyAll(): Promise<void> {
  const result = await dashcd('apply');
  expect(result.code, result.stderr).toBe(0);
}

describe('apply --prune', () => {
  it('deletes only owned orphans; a dashboard made without the tag survives', async () => {
    await applyAll();
    await project.remove('dashboards/beta.yaml');

    const planned = await dashcd('plan');
    expect(planned.stdout).toMatch(/- orphan {2}beta {2}\(id [0-9a-f-]{36}, owner team@example\.com\) — kept: pruning is off/);
    expect(planned.stdout).not.toContain('Hand made');
    expect(planned.stdout).toContain('3 unchanged, 1 orphan kept.');

    expect((await dashcd('apply')).code).toBe(0);
    expect(await liveNames()).toContain('beta');
    expect(deletes()).toBe(0);

    const pruned = await dashcd('apply', '--prune');
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(pruned.stdout).toMatch(/- deleted {2}[0-9a-f-]{36} {2}beta\n/);
    expect(pruned.stdout).toContain('0 created, 0 updated, 3 unchanged, 1 deleted, 0 failed');
    expect(await liveNames()).toEqual(['Hand made', 'alpha', 'delta', 'gamma']);
  });

  it('an empty dashboards folder never prunes', async () => {
    await applyAll();
    for (const n of NAMES) await project.remove(`dashboards/${n}.yaml`);
    const result = await dashcd('apply', '--prune', '--max-delete', '100');
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/refusing to prune: the dashboards folder has no dashboards/);
    expect(deletes()).toBe(0);
    expect(await liveNames()).toHaveLength(5);
  });

  it('a missing dashboards folder never prunes', async () => {
    await applyAll();
    const result = await dashcd('apply', '--prune', '--dir', 'no-such-folder');
    expect(result.code).not.toBe(0);
    expect(deletes()).toBe(0);
    expect(await liveNames()).toHaveLength(5);
  });

  it('more deletions than --max-delete stop the run before any deletion or write', async () => {
    await applyAll();
    for (const n of ['beta', 'gamma', 'delta']) await project.remove(`dashboards/${n}.yaml`);
    await project.write('dashboards/alpha.yaml', dashboardYaml('alpha').replace('name: Notes', 'name: Changed'));
    target.proxy.requests.length = 0;

    const refused = await dashcd('apply', '--prune', '--max-delete', '2');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('refusing to prune 3 dashboards: more than --max-delete 2');
    expect(target.proxy.requests.filter((r) => r.method !== 'GET')).toEqual([]);

    const allowed = await dashcd('apply', '--prune', '--max-delete', '3');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(deletes()).toBe(3);
    expect(await liveNames()).toEqual(['Hand made', 'alpha']);
  });

  it('dashcd.yaml sets the ownership tag and the default --max-delete', async () => {
    await project.write('dashcd.yaml', 'ownershipTag: owner:platform-ci\nmaxDelete: 1\n');
    await applyAll();
    expect((await target.api.dashboards.list({ tags: ['owner:platform-ci'] })).length).toBe(4);
    for (const n of ['beta', 'gamma']) await project.remove(`dashboards/${n}.yaml`);
    const refused = await dashcd('apply', '--prune');
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('more than maxDelete 1 in dashcd.yaml; raise it there, or pass --max-delete, to allow it');
    expect(deletes()).toBe(0);
  });
});
