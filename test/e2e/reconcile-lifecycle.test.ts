import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startProxiedTarget, type ProxiedTarget } from '../helpers/proxied-target.js';

const PINNED_ID = '5f0c2a9e-8a4b-4c1e-9d2f-0b6a7c3e1d11';

const SERVICE_HEALTH = `dashboardMetadata:
  name: Service health
  owner: platform@example.com
  tags: [team-a]
tiles:
  - name: Intro
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: "# Service health"
  - name: CPU
    tileType: HOSTS
    bounds: { top: 0, left: 304, width: 304, height: 304 }
    chartVisible: true
`;

const HOSTS = `id: ${PINNED_ID}
dashboardMetadata:
  name: Hosts
  owner: platform@example.com
tiles:
  - name: Hosts
    tileType: HOSTS
    bounds: { top: 0, left: 0, width: 304, height: 304 }
`;

let target: ProxiedTarget;
let project: Project;

beforeEach(async () => {
  // Every request of the CLI goes through the target's recording proxy, so tests can count writes.
  target = await startProxiedTarget();
});
afterEach(async () => {
  await target.close();
  await project?.cleanup();
});

async function newProject(options: { git?: boolean } = {}): Promise<Project> {
  project = await createProject({ 'dashboards/service-health.yaml': SERVICE_HEALTH, 'dashboards/hosts.yaml': HOSTS }, options);
  return project;
}

function dashcd(...argv: string[]): Promise<CliResult> {
  return runDashcd(argv, { cwd: project.root, env: target.env });
}

async function planJson(): Promise<{ changes: { action: string; id: string; file: string | null; patch: unknown }[]; git: { commit: string; dirty: boolean } | null }> {
  const result = await dashcd('plan', '--output', 'json');
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

const writes = (): string[] =>
  target.proxy.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.path.replace('/e/local/api/config/v1/dashboards/', '')}`);

async function idOf(file: string): Promise<string> {
  const change = (await planJson()).changes.find((c) => c.file === file);
  if (!change) throw new Error(`no change for ${file}`);
  return change.id;
}

describe('create → apply → plan', () => {
  it('creates every dashboard, after which plan shows no change and a second apply writes nothing', async () => {
    await newProject();
    const planned = await dashcd('plan', '--detailed-exitcode');
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('+ create  Service health  (dashboards/service-health.yaml)');
    expect(planned.stdout).toContain('Plan: 2 to create, 0 to update, 0 unchanged, 0 orphans.');

    const applied = await dashcd('apply');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`+ created  ${PINNED_ID}  dashboards/hosts.yaml`);
    expect(applied.stdout).toMatch(/2 created, 0 updated, 0 unchanged, 0 deleted, 0 failed in \d+\.\d\ds/);
    const derivedId = await idOf('dashboards/service-health.yaml');
    expect(applied.stdout).toContain(`+ created  ${derivedId}  dashboards/service-health.yaml`);

    const again = await dashcd('plan', '--detailed-exitcode');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('No changes: 0 to create, 0 to update, 2 unchanged, 0 orphans.');

    target.proxy.requests.length = 0;
    const second = await dashcd('apply');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('0 created, 0 updated, 2 unchanged');
    expect(writes()).toEqual([]);
    // The store's own version counter agrees: each dashboard was written exactly once.
    for (const id of [PINNED_ID, derivedId]) expect((await target.api.dashboards.get(id))?.metadata?.configurationVersions).toEqual([1]);
  });

  it('derives the same id for an unpinned file on every run and adds the ownership tag', async () => {
    await newProject();
    const first = await idOf('dashboards/service-health.yaml');
    expect(first).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(await idOf('dashboards/service-health.yaml')).toBe(first);
    expect((await dashcd('apply')).code).toBe(0);
    expect((await target.api.dashboards.get(first))?.dashboardMetadata.tags).toEqual(['team-a', 'managed-by:dashcd']);
  });

  it('an edited tile name is exactly one update with the right patch path, and apply writes only that dashboard', async () => {
    await newProject();
    expect((await dashcd('apply')).code).toBe(0);
    const id = await idOf('dashboards/service-health.yaml');
    await project.write('dashboards/service-health.yaml', SERVICE_HEALTH.replace('- name: CPU', '- name: CPU usage'));

    const text = await dashcd('plan', '--detailed-exitcode');
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('~ update  Service health  (dashboards/service-health.yaml)\n    ~ tiles[1].name: "CPU" → "CPU usage"\n');
    expect(text.stdout).toContain('Plan: 0 to create, 1 to update, 1 unchanged, 0 orphans.');
    const updates = (await planJson()).changes.filter((c) => c.action === 'update');
    expect(updates).toEqual([
      { action: 'update', kind: 'dashboard', id, name: 'Service health', file: 'dashboards/service-health.yaml', patch: [{ op: 'replace', path: '/tiles/1/name', value: 'CPU usage' }], heldInTrash: null },
    ]);

    target.proxy.requests.length = 0;
    const applied = await dashcd('apply');
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`~ updated  ${id}  dashboards/service-health.yaml`);
    expect(writes()).toEqual([`POST ${id}/validator`, `PUT ${id}`]);
    expect((await target.api.dashboards.get(id))?.tiles[1]?.name).toBe('CPU usage');
  });

  it('drift made through the API shows in plan and apply reverts it', async () => {
    await newProject();
    expect((await dashcd('apply')).code).toBe(0);
    const live = await target.api.dashboards.get(PINNED_ID);
    if (!live) throw new Error('not created');
    await target.api.dashboards.put(PINNED_ID, { ...live, tiles: [{ ...live.tiles[0], name: 'Renamed in the UI' }] });

    const planned = await dashcd('plan', '--detailed-exitcode');
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain('~ update  Hosts  (dashboards/hosts.yaml)\n    ~ tiles[0].name: "Renamed in the UI" → "Hosts"\n');

    const applied = await dashcd('apply');
    expect(applied.code).toBe(0);
    expect((await target.api.dashboards.get(PINNED_ID))?.tiles[0]?.name).toBe('Hosts');
    expect((await dashcd('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('without --detailed-exitcode plan exits 0 even with changes pending', async () => {
    await newProject();
    const planned = await dashcd('plan');
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('2 to create');
  });
});

describe('plan output formats', () => {
  it('--output json has exactly the documented keys, in order', async () => {
    await newProject();
    expect((await dashcd('apply')).code).toBe(0);
    await project.write('dashboards/service-health.yaml', SERVICE_HEALTH.replace('- name: CPU', '- name: CPU usage'));
    const result = await dashcd('plan', '--output', 'json');
    const plan = JSON.parse(result.stdout) as Record<string, unknown> & { changes: Record<string, unknown>[]; summary: Record<string, unknown> };
    expect(Object.keys(plan)).toEqual(['git', 'target', 'scope', 'prune', 'changes', 'summary']);
    expect(plan.git).toBeNull();
    expect(plan.target).toBe(`${target.proxy.url}/e/local`);
    for (const change of plan.changes) expect(Object.keys(change)).toEqual(['action', 'kind', 'id', 'name', 'file', 'patch', 'heldInTrash']);
    expect(plan.changes.map((c) => [c.action, c.file])).toEqual([
      ['update', 'dashboards/service-health.yaml'],
      ['unchanged', 'dashboards/hosts.yaml'],
    ]);
    expect(plan.changes[1]?.patch).toBeNull();
    expect(plan.summary).toEqual({ create: 0, adopt: 0, update: 1, delete: 0, unchanged: 1, orphan: 0 });
    expect(result.stdout.endsWith('}\n')).toBe(true);
  });

  it('--output markdown is a table of changes plus a collapsible diff per update', async () => {
    await newProject();
    expect((await dashcd('apply')).code).toBe(0);
    await project.write('dashboards/service-health.yaml', SERVICE_HEALTH.replace('- name: CPU', '- name: CPU usage'));
    await project.write('dashboards/new.yaml', HOSTS.replace(PINNED_ID, '6f0c2a9e-8a4b-4c1e-9d2f-0b6a7c3e1d12').replace('name: Hosts\n  owner', 'name: New one\n  owner'));
    const { stdout, code } = await dashcd('plan', '--output', 'markdown');
    expect(code).toBe(0);
    expect(stdout).toContain('**1 to create, 1 to update, 1 unchanged, 0 orphans**');
    expect(stdout).toContain('| action | dashboard | file |\n| --- | --- | --- |\n');
    expect(stdout).toContain('| `+ create` | New one | <code>dashboards/new.yaml</code> |');
    expect(stdout).toContain('| `~ update` | Service health | <code>dashboards/service-health.yaml</code> |');
    expect(stdout).not.toContain('| `  unchanged` |');
    expect(stdout).toMatch(/<details><summary>~ update <b>Service health<\/b> \(<code>dashboards\/service-health.yaml<\/code>\): 1 change<\/summary>\n\n```diff\n~ tiles\[1\]\.name: "CPU" → "CPU usage"\n```\n\n<\/details>/);
  });
});

describe('GitOps: the commit being reconciled', () => {
  it('is named by plan in text, json and markdown, and by apply', async () => {
    await newProject({ git: true });
    const commit = (await project.git('rev-parse', 'HEAD')).trim();
    const short = (await project.git('rev-parse', '--short', 'HEAD')).trim();

    expect((await dashcd('plan')).stdout).toContain(`at commit ${short} on main\n`);
    const json = await planJson();
    expect(json.git).toEqual({ commit, shortCommit: short, branch: 'main', dirty: false });
    const markdown = (await dashcd('plan', '--output', 'markdown')).stdout;
    expect(markdown).toContain(`### dashcd plan for <code>${short}</code> on <code>main</code>`);
    expect(markdown).toContain(`Commit <code>${commit}</code>`);
    expect(markdown).not.toContain('uncommitted');
    expect((await dashcd('apply')).stdout).toContain(`at commit ${short} on main`);
  });

  it('says so in every format when the dashboards folder has uncommitted changes', async () => {
    await newProject({ git: true });
    const short = (await project.git('rev-parse', '--short', 'HEAD')).trim();
    await project.write('dashboards/service-health.yaml', SERVICE_HEALTH.replace('- name: CPU', '- name: CPU usage'));

    expect((await dashcd('plan')).stdout).toContain(`at commit ${short} on main (uncommitted changes in dashboards/)`);
    expect((await planJson()).git).toMatchObject({ dirty: true });
    expect((await dashcd('plan', '--output', 'markdown')).stdout).toContain('uncommitted changes in dashboards/');
    expect((await dashcd('apply')).stdout).toContain('(uncommitted changes in dashboards/)');

    const next = await project.commit('rename CPU tile');
    const text = (await dashcd('plan')).stdout;
    expect(text).toContain(`at commit ${next.slice(0, short.length)} on main\n`);
    expect(text).not.toContain('uncommitted');
  });

  it('a git work tree with no commits yet says so in text, json and markdown (and apply), not "not in a git work tree"', async () => {
    await newProject();
    await project.git('init', '-q', '-b', 'main');

    const text = await dashcd('plan');
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe(`Plan for ${target.proxy.url}/e/local (git: no commits yet on main) (uncommitted changes in dashboards/)`);
    expect((await planJson()).git).toEqual({ commit: null, shortCommit: null, branch: 'main', dirty: true });
    const markdown = (await dashcd('plan', '--output', 'markdown')).stdout;
    expect(markdown.split('\n')[0]).toBe('### dashcd plan (git: no commits yet on <code>main</code>)');
    expect(markdown).toContain('Git: no commits yet');
    expect(markdown).not.toContain('not in a git work tree');
    expect((await dashcd('apply')).stdout).toContain('(git: no commits yet on main)');
  });

  it('a project that is not a git work tree says so instead of naming a commit', async () => {
    await newProject();
    expect((await dashcd('plan')).stdout.split('\n')[0]).toBe(`Plan for ${target.proxy.url}/e/local (not in a git work tree)`);
    expect(await readFile(join(project.root, 'dashboards/hosts.yaml'), 'utf8')).toBe(HOSTS);
  });
});
