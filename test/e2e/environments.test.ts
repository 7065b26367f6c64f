import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EnvironmentId } from '../../src/schema/ids.js';
import { deriveDashboardId } from '../../src/desired/load-desired.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { captureLog } from '../helpers/log-capture.js';
import { api, startTestServer } from '../helpers/server.js';

const CONFIG = `values:
  timeframe: -2h
  height: 152
environments:
  dev:
  prod-eu:
    values:
      region: eu
  prod-us:
    values:
      region: us
groups:
  production:
    environments: [prod-eu, prod-us]
    values:
      timeframe: -7d
      region: all
`;

const HOSTS = `dashboardMetadata:
  name: Hosts \${{ env.name }}
  owner: ops
  dashboardFilter:
    timeframe: \${{ values.timeframe }}
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds:
      top: 0
      left: 0
      width: 304
      height: \${{ values.height }}
    markdown: notes
dashcd:
  overrides:
    production:
      tiles:
        - name: Budget
          tileType: MARKDOWN
          bounds: { top: 0, left: 304, width: 304, height: 152 }
          markdown: "[open](#dashboard;id=\${{ dashboard(\\"budget.yaml\\") }})"
`;

const BUDGET = `dashboardMetadata: { name: Error budget, owner: ops }
tiles: []
dashcd:
  environments: [production]
`;

const REGION = `dashboardMetadata: { name: "Region \${{ values.region }}", owner: ops }
tiles: []
dashcd:
  environments: [production]
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function setUp(): Promise<(...argv: string[]) => Promise<CliResult>> {
  project = await createProject({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': HOSTS, 'dashboards/budget.yaml': BUDGET, 'dashboards/region.yaml': REGION });
  const root = project.root;
  return (...argv) => runDashcd(argv, { cwd: root });
}

/** The live dashboards of each environment, read over HTTP from the store the commands wrote. */
async function live(envs: readonly string[]): Promise<Record<string, Record<string, unknown>[]>> {
  const server = await startTestServer({ dataDir: join((project as Project).root, '.dashcd'), keepDataDir: true });
  try {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const env of envs) {
      const token = server.tokenFor(['ReadConfig'], EnvironmentId.parse(env));
      const list = (await api(`${server.baseUrl}/e/${env}/api/config/v1/dashboards`, { token })).json as { dashboards: { id: string }[] };
      const full = await Promise.all(list.dashboards.map(async (d) => (await api(`${server.baseUrl}/e/${env}/api/config/v1/dashboards/${d.id}`, { token })).json as Record<string, unknown>));
      out[env] = full.sort((a, b) => String(a.id).localeCompare(String(b.id)));
    }
    return out;
  } finally {
    await server.close();
  }
}

const names = (dashboards: Record<string, unknown>[] | undefined): string[] =>
  (dashboards ?? []).map((d) => (d.dashboardMetadata as { name: string }).name).sort();

describe('environments of the embedded API', () => {
  it('applies the same files with each environment’s values, limits and references', async () => {
    const dashcd = await setUp();
    const applied = await dashcd('apply', '--all-envs');
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain('✓ dev: applied\n✓ prod-eu: applied\n✓ prod-us: applied\n');
    const state = await live(['dev', 'prod-eu', 'prod-us']);
    expect(names(state.dev)).toEqual(['Hosts dev']);
    expect(names(state['prod-eu'])).toEqual(['Error budget', 'Hosts prod-eu', 'Region eu']);
    expect(names(state['prod-us'])).toEqual(['Error budget', 'Hosts prod-us', 'Region us']);
    const hosts = (env: string): Record<string, unknown> | undefined => state[env]?.find((d) => d.id === deriveDashboardId('hosts.yaml'));
    expect((hosts('dev')?.dashboardMetadata as Record<string, unknown>).dashboardFilter).toEqual({ timeframe: '-2h' });
    expect((hosts('prod-eu')?.dashboardMetadata as Record<string, unknown>).dashboardFilter).toEqual({ timeframe: '-7d' });
    expect(hosts('dev')?.tiles).toEqual([{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: 'notes' }]);
    expect((hosts('prod-us')?.tiles as Record<string, unknown>[])[1]).toEqual({
      name: 'Budget',
      tileType: 'MARKDOWN',
      bounds: { top: 0, left: 304, width: 304, height: 152 },
      markdown: `[open](#dashboard;id=${deriveDashboardId('budget.yaml')})`,
    });
  });

  it('updates only the group whose value changed', async () => {
    const dashcd = await setUp();
    expect((await dashcd('apply', '--all-envs')).code).toBe(0);
    await project?.write('dashcd.yaml', CONFIG.replace('timeframe: -7d', 'timeframe: -30d'));
    const plan = await dashcd('plan', '--output', 'json', '--detailed-exitcode');
    expect(plan.code, plan.stderr).toBe(2);
    const summaries = (JSON.parse(plan.stdout) as { environments: { name: string; summary: { update: number; create: number } }[] }).environments.map((e) => [e.name, e.summary.create, e.summary.update]);
    expect(summaries).toEqual([['dev', 0, 0], ['prod-eu', 0, 1], ['prod-us', 0, 1]]);
    const applied = await dashcd('apply', '--env', 'production');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('== dev');
    expect((await dashcd('plan', '--detailed-exitcode')).code).toBe(0);
  });

  it('a prune the guard refuses is exit 3 in every format, named in the summary, the JSON and on stderr, as without environments', async () => {
    // It exited 0 (2 with --detailed-exitcode) and the JSON said nothing: a CI plan passed that its apply then failed.
    const dashcd = await setUp();
    expect((await dashcd('apply', '--all-envs')).code).toBe(0);
    await project?.remove('dashboards/region.yaml');
    const text = await dashcd('plan', '--env', 'prod-eu', '--prune', '--max-delete', '0');
    expect(text.code, text.stderr).toBe(3);
    expect(text.stdout).toMatch(/\nprod-eu +0 +0 +0 +1 +2 +0 {2}prune refused: apply writes nothing\n/);
    expect(text.stderr).toContain('✗ prod-eu: refusing to prune 1 dashboard');
    const json = await dashcd('plan', '--env', 'production', '--prune', '--max-delete', '0', '--output', 'json', '--detailed-exitcode');
    expect(json.code, json.stderr).toBe(3);
    const environments = (JSON.parse(json.stdout) as { environments: { name: string; prune: { enabled: boolean; refused: string | null } | null }[] }).environments;
    expect(environments.map((e) => [e.name, e.prune?.enabled, e.prune?.refused?.slice(0, 29)])).toEqual([['prod-eu', true, 'refusing to prune 1 dashboard'], ['prod-us', true, 'refusing to prune 1 dashboard']]);
    expect(json.stderr.match(/^✗ prod-(eu|us): refusing to prune 1 dashboard.*; apply would write nothing$/gm)).toHaveLength(2);
    const markdown = await dashcd('plan', '--env', 'prod-us', '--prune', '--max-delete', '0', '--output', 'markdown');
    expect(markdown.code).toBe(3);
    expect(markdown.stdout).toContain('| `prod-us` ⛔ prune refused: apply writes nothing | 0 |');
    expect((await dashcd('plan', '--env', 'prod-eu', '--prune', '--max-delete', '1')).code).toBe(0);
    expect((await dashcd('apply', '--env', 'prod-eu', '--prune', '--max-delete', '0')).code).toBe(3);
    // Beside an environment that could not be planned (exit 4 wins), the refusal is still named on stderr.
    await project?.write('dashcd.yaml', CONFIG.replace('  dev:\n', '  dev:\n  remote:\n    target: https://remote.example.invalid\n    tokenEnv: REMOTE_TOKEN\n'));
    const both = await dashcd('plan', '--env', 'prod-eu', '--env', 'remote', '--prune', '--max-delete', '0');
    expect(both.code, both.stderr).toBe(4);
    expect(both.stderr).toContain('✗ prod-eu: refusing to prune 1 dashboard');
  });

  it('says DT_ENV_URL is not used when dashcd.yaml names the targets (it planned the embedded store without a word)', async () => {
    project = await createProject({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': HOSTS });
    const { lines, log } = captureLog('warn');
    const planned = await runDashcd(['plan', '--env', 'dev'], { cwd: project.root, env: { DT_ENV_URL: 'http://127.0.0.1:9/e/dev' }, log });
    expect(planned.code, planned.stderr).toBe(0);
    expect(planned.stdout).toContain('embedded store');
    expect(lines.map((line) => line['msg'])).toEqual(['DT_ENV_URL is set but not used: dashcd.yaml names each environment’s target (an environment without one is the embedded store)']);
    const quiet = captureLog('warn');
    expect((await runDashcd(['plan', '--env', 'dev'], { cwd: project.root, env: {}, log: quiet.log })).code).toBe(0);
    expect(quiet.lines).toEqual([]);
  });

  it('refuses to apply without a choice, listing the environments (exit 64)', async () => {
    const dashcd = await setUp();
    const refused = await dashcd('apply');
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('apply writes: choose environments with --env NAME (an environment or group, repeatable) or --all-envs. Declared in dashcd.yaml:\n  dev                         embedded /e/dev\n  prod-eu (group production)  embedded /e/prod-eu\n');
    expect((await dashcd('plan', '--env', 'prd-eu')).stderr).toContain('unknown environment prd-eu — did you mean prod-eu?');
  });

  it('fails only the environment with a bad value; the others are applied (exit 5)', async () => {
    const dashcd = await setUp();
    await project?.write('dashcd.yaml', CONFIG.replace('      region: us\n', '      region: us\n      height: tall\n'));
    const applied = await dashcd('apply', '--all-envs');
    expect(applied.code).toBe(5);
    expect(applied.stdout).toContain('dashboards/hosts.yaml:13:15  [prod-us] tiles[0].bounds.height: Invalid input: expected number, received string (values.height = "tall", set in environments.prod-us.values at dashcd.yaml:12:15)');
    expect(applied.stdout).toContain('✓ dev: applied\n✓ prod-eu: applied\n✗ prod-us: invalid, nothing written (exit 3)\n');
    const state = await live(['dev', 'prod-eu']);
    expect([state.dev?.length, state['prod-eu']?.length]).toEqual([1, 3]);
    // Nothing was written to prod-us: the embedded store never even opened it (docs/embedded-api.md:
    // .dashcd/env/<env>/dashboards/).
    expect(existsSync(join((project as Project).root, '.dashcd/env/prod-us'))).toBe(false);
  });

  it('plans every environment in markdown: summary table first, one section each', async () => {
    const dashcd = await setUp();
    const plan = await dashcd('plan', '--output', 'markdown');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout.split('\n').slice(0, 8)).toEqual([
      '### dashcd plan for 3 environments',
      '',
      '| environment | create | adopt | update | delete | unchanged | orphan |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
      '| `dev` | 1 | 0 | 0 | 0 | 0 | 0 |',
      '| `prod-eu` | 3 | 0 | 0 | 0 | 0 | 0 |',
      '| `prod-us` | 3 | 0 | 0 | 0 | 0 | 0 |',
      '',
    ]);
    expect(plan.stdout.match(/^#### `[a-z-]+`/gm)).toEqual(['#### `dev`', '#### `prod-eu`', '#### `prod-us`']);
  });

  it('pull --env refuses to overwrite a differing file that uses values, naming them, unless --force', async () => {
    const dashcd = await setUp();
    expect((await dashcd('apply', '--env', 'prod-eu')).code).toBe(0);
    const root = (project as Project).root;
    // prod-eu's region changes in dashcd.yaml: the live "Region eu" now differs from what region.yaml renders.
    await writeFile(join(root, 'dashcd.yaml'), CONFIG.replace('region: eu', 'region: north'));
    const before = await readFile(join(root, 'dashboards/region.yaml'), 'utf8');

    const refused = await dashcd('pull', '--all', '--env', 'prod-eu');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/dashboards\/region\.yaml differs from live dashboard [0-9a-f-]+ in prod-eu and uses values\.region, dashcd:; not overwritten \(it would lose them\): 'dashcd plan --env prod-eu' shows what differs; --force replaces it with the rendered dashboard$/m);
    // Files that use values but mean the same as live are up to date, and never rewritten.
    expect(refused.stdout).toContain('= up to date');
    expect(refused.stdout).toContain('dashboards/hosts.yaml');
    expect(await readFile(join(root, 'dashboards/region.yaml'), 'utf8')).toBe(before);

    const forced = await dashcd('pull', '--all', '--env', 'prod-eu', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(await readFile(join(root, 'dashboards/region.yaml'), 'utf8')).toContain('name: Region eu');
    expect(await readFile(join(root, 'dashboards/hosts.yaml'), 'utf8')).toContain('${{ values.timeframe }}');

    // Refused before anything is written: not even the --dir folder is made.
    const unchosen = await dashcd('pull', '--all', '--dir', 'dashboards/imported');
    expect(unchosen.code).toBe(64);
    expect(unchosen.stderr).toContain('pull acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:');
    expect(unchosen.stderr).not.toContain('--all-envs');
    expect(existsSync(join(root, 'dashboards/imported'))).toBe(false);
    const group = await dashcd('pull', '--all', '--env', 'production');
    expect(group.code).toBe(64);
    expect(group.stderr).toContain('pull acts on one environment; --env chose prod-eu, prod-us');
    // Every environment at once is not a pull: the flag is not pull's.
    expect((await dashcd('pull', '--all', '--all-envs')).code).toBe(64);
  });
});

