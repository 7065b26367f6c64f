import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { startProxiedTarget, type ProxiedTarget } from '../helpers/proxied-target.js';

const FILES = {
  'dashboards/team/api.yaml': markdownDashboard({ name: 'API', owner: 'team@example.com', markdown: 'api' }),
  'dashboards/ops/db.yaml': markdownDashboard({ name: 'DB', owner: 'ops@example.com', markdown: 'db' }),
  'dashboards/top.yaml': markdownDashboard({ name: 'Top', owner: 'ops@example.com', markdown: 'top' }),
};

let target: ProxiedTarget | undefined;
let project: Project | undefined;
afterEach(async () => {
  await target?.close();
  await project?.cleanup();
  target = project = undefined;
});

async function setUp(options: { git: boolean; config?: boolean }): Promise<{ p: Project; t: ProxiedTarget }> {
  target = await startProxiedTarget();
  project = await createProject({ ...FILES, ...(options.config ? { 'dashcd.yaml': 'ignore: []\n' } : {}) }, { git: options.git });
  return { p: project, t: target };
}

function dashcdIn(p: Project, t: ProxiedTarget, cwd = '.'): (...argv: string[]) => Promise<CliResult> {
  return (...argv) => runDashcd(argv, { cwd: join(p.root, cwd), env: t.env });
}

type JsonChange = { action: string; id: string; name: string };

async function planJson(run: (...argv: string[]) => Promise<CliResult>, ...argv: string[]): Promise<JsonChange[]> {
  const result = await run('plan', '--output', 'json', ...argv);
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout) as { changes: JsonChange[] }).changes;
}

/** name → live id after a full apply from the project root. */
async function applyFromRoot(p: Project, t: ProxiedTarget): Promise<Record<string, string>> {
  const applied = await dashcdIn(p, t)('apply');
  expect(applied.code, applied.stderr).toBe(0);
  return Object.fromEntries((await t.api.dashboards.list()).map((d) => [d.name, d.id]));
}

const byName = (changes: readonly JsonChange[]): Record<string, string> => Object.fromEntries(changes.map((c) => [c.name, c.id]));

describe('a dashboard has one id however the command is invoked', () => {
  for (const setup of [
    { title: 'in a git work tree', git: true, config: false },
    { title: 'outside git, with dashcd.yaml', git: false, config: true },
  ]) {
    it(`plan from the root, a subfolder --dir, a nested working directory and with paths: same ids, nothing created, no orphans (${setup.title})`, async () => {
      const { p, t } = await setUp(setup);
      const live = await applyFromRoot(p, t);
      const runs: JsonChange[][] = [
        await planJson(dashcdIn(p, t)),
        await planJson(dashcdIn(p, t), '--dir', 'dashboards/team'),
        await planJson(dashcdIn(p, t), 'dashboards/team/api.yaml', 'dashboards/ops/'),
        await planJson(dashcdIn(p, t, 'dashboards/team')),
        await planJson(dashcdIn(p, t, 'dashboards/team'), 'api.yaml'),
        await planJson(dashcdIn(p, t, 'dashboards/ops'), '--dir', '.'),
      ];
      for (const changes of runs) {
        expect(changes.map((c) => c.action).every((a) => a === 'unchanged')).toBe(true);
        for (const [name, id] of Object.entries(byName(changes))) expect(id).toBe(live[name]);
      }
      expect(runs.map((changes) => changes.map((c) => c.name).sort())).toEqual([
        ['API', 'DB', 'Top'],
        ['API'],
        ['API', 'DB'],
        ['API', 'DB', 'Top'],
        ['API'],
        ['DB'],
      ]);
    });
  }

  it('pin from a subfolder writes the live id; pull from a nested directory refreshes the file in place', async () => {
    const { p, t } = await setUp({ git: true });
    const live = await applyFromRoot(p, t);
    const pinned = await dashcdIn(p, t)('pin', '--dir', 'dashboards/team');
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(await readFile(join(p.root, 'dashboards/team/api.yaml'), 'utf8')).toMatch(new RegExp(`^id: ${live.API}\n`));
    const nestedPin = await dashcdIn(p, t, 'dashboards/ops')('pin', 'db.yaml');
    expect(nestedPin.code, nestedPin.stderr).toBe(0);
    expect(await readFile(join(p.root, 'dashboards/ops/db.yaml'), 'utf8')).toMatch(new RegExp(`^id: ${live.DB}\n`));

    const pulled = await dashcdIn(p, t, 'dashboards/team')('pull', live.Top as string);
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stdout).toMatch(/= up to date {2}\S+ {2}\.\.\/top\.yaml/);
    expect((await planJson(dashcdIn(p, t))).map((c) => c.action)).toEqual(['unchanged', 'unchanged', 'unchanged']);
  });
});

describe('selective runs', () => {
  it('apply with a path writes only the named file, and reports no orphan for files it did not read', async () => {
    const { p, t } = await setUp({ git: true });
    await applyFromRoot(p, t);
    for (const [file, text] of Object.entries(FILES)) await p.write(file, text.replace(/markdown: (\w+)/, 'markdown: $1 edited'));
    await p.remove('dashboards/top.yaml');
    const before = t.proxy.requests.length;

    const applied = await dashcdIn(p, t)('apply', 'dashboards/team/api.yaml');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('0 unchanged, orphans not checked (selective run).');
    const writes = t.proxy.requests.slice(before).filter((r) => r.method === 'PUT' || r.method === 'DELETE');
    expect(writes).toHaveLength(1);
    const names = Object.fromEntries((await t.api.dashboards.list()).map((d) => [d.name, d.id]));
    expect(writes[0]?.path).toContain(names.API);
    expect(Object.keys(names).sort()).toEqual(['API', 'DB', 'Top']);
  });

  it('apply --prune from a subfolder or with paths is refused before anything is read or written', async () => {
    const { p, t } = await setUp({ git: true });
    await applyFromRoot(p, t);
    const before = t.proxy.requests.length;
    for (const argv of [['--dir', 'dashboards/team'], ['dashboards/team/api.yaml']]) {
      const refused = await dashcdIn(p, t)('apply', '--prune', ...argv);
      expect(refused.code).toBe(64);
      expect(refused.stderr).toContain('never prunes');
    }
    expect(t.proxy.requests.length).toBe(before);
    expect((await t.api.dashboards.list()).map((d) => d.name).sort()).toEqual(['API', 'DB', 'Top']);
  });

  it('validate with paths checks only those files; a path that does not exist is exit 3', async () => {
    const { p } = await setUp({ git: false });
    await p.write('dashboards/ops/broken.yaml', 'dashboardMetadata: [\n');
    const only = await runDashcd(['validate', 'dashboards/team/api.yaml', 'dashboards/top.yaml'], { cwd: p.root });
    expect(only.code, only.stdout + only.stderr).toBe(0);
    expect(only.stderr).toContain('2 dashboards valid in 2 files');
    const folder = await runDashcd(['validate', 'dashboards/ops'], { cwd: p.root });
    expect(folder.code).toBe(3);
    expect(folder.stdout + folder.stderr).toContain('dashboards/ops/broken.yaml');
    const missing = await runDashcd(['validate', 'dashboards/nope.yaml'], { cwd: p.root });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('dashboards/nope.yaml: no such file or folder');
  });
});
