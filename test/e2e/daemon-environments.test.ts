import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvironmentsStatusJson } from '../../src/daemon/status-schema.js';
import { createToken, dashboardYaml, expectConsistentArchive, metricValue, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { hostsTemplate } from '../helpers/environments.js';
import { api, startTestServer } from '../helpers/server.js';

const scope = daemonScopePerTest();

/** dev alone, staging and prod in a group; prod's `height` is `bad` unless it is given. */
function config(prodHeight: string): string {
  return `values:
  height: 152
  note: default note
environments:
  dev:
  staging:
  prod:
    values:
      height: ${prodHeight}
groups:
  production:
    environments: [staging, prod]
    values:
      note: production note
`;
}

const HOSTS = hostsTemplate('"${{ values.height }}"');

interface Live {
  dashboardMetadata: { name: string };
  tiles: { markdown?: string }[];
}

/** The dashboards live in one environment of the daemon's embedded API. */
async function liveIn(d: DaemonChild, cwd: string, env: string): Promise<Live[]> {
  const token = await createToken(cwd, '.dashcd', 'ReadConfig', env);
  const list = await api(`${d.url}/e/${env}/api/config/v1/dashboards`, { token });
  const ids = (list.json as { dashboards: { id: string }[] }).dashboards.map((d) => d.id);
  return Promise.all(ids.map(async (id) => (await api(`${d.url}/e/${env}/api/config/v1/dashboards/${id}`, { token })).json as Live));
}

async function environments(d: DaemonChild): Promise<EnvironmentsStatusJson['environments']> {
  return EnvironmentsStatusJson.parse(await d.status()).environments;
}

describe('dashcd daemon with environments of the embedded API', () => {
  it('reconciles each environment from one process; /status and /metrics report each; a bad value in prod stops only prod until fixed', async () => {
    const project = await scope.createProject({ 'dashcd.yaml': config('tall'), 'dashboards/hosts.yaml': HOSTS });
    const d = await scope.startDaemon(['--simulate-events', '--poll', '200ms', '--resync', '1s'], { cwd: project.root });

    const [dev, staging, prod] = await environments(d);
    expect([dev?.name, staging?.name, prod?.name]).toEqual(['dev', 'staging', 'prod']);
    expect(staging).toMatchObject({ group: 'production', target: `${d.url}/e/staging`, lastReconcile: { ok: true }, invalid: [] });
    // Created by the first pass; a resync since may already have found it unchanged.
    expect(dev?.files['dashboards/hosts.yaml']?.result).toMatch(/^(created|unchanged)$/);
    expect(prod?.lastReconcile).toMatchObject({ ok: false, error: 'values.height of environment prod makes files invalid; nothing was written to it until it is fixed' });
    expect(prod?.invalid[0]?.errors.join('\n')).toMatch(/\[prod\] tiles\[0\]\.bounds\.height: .*values\.height = "tall", set in environments\.prod\.values at dashcd\.yaml:9:/);

    expect((await liveIn(d, project.root, 'dev')).map((l) => [l.dashboardMetadata.name, l.tiles[0]?.markdown])).toEqual([['Hosts dev', 'default note']]);
    expect((await liveIn(d, project.root, 'staging')).map((l) => [l.dashboardMetadata.name, l.tiles[0]?.markdown])).toEqual([['Hosts staging', 'production note']]);
    expect(await liveIn(d, project.root, 'prod')).toEqual([]);

    const samples = await d.metrics();
    expect(samples.filter((s) => s.labels.env === undefined).map((s) => s.name)).toEqual([]);
    expect(metricValue(samples, 'dashcd_writes_total', { env: 'dev', action: 'create' })).toBe(1);
    expect(metricValue(samples, 'dashcd_writes_total', { env: 'staging', action: 'create' })).toBe(1);
    expect(metricValue(samples, 'dashcd_writes_total', { env: 'prod' })).toBe(0);
    expect(metricValue(samples, 'dashcd_reconciles_total', { env: 'prod', result: 'failed' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(samples, 'dashcd_reconciles_total', { env: 'prod', result: 'ok' })).toBe(0);
    expect(metricValue(samples, 'dashcd_invalid_files', { env: 'prod' })).toBe(1);
    expect(metricValue(samples, 'dashcd_invalid_files', { env: 'dev' })).toBe(0);

    // Each environment archives its own feed into its own folder.
    await waitFor(async () => (await environments(d)).every((e) => e.poller.eventsArchived > 0), { what: 'simulated events archived for every environment' });

    // Fixing prod's value heals prod at the next resync; the others were never stopped.
    await writeFile(join(project.root, 'dashcd.yaml'), config('152'));
    await waitFor(async () => (await environments(d))[2]?.lastReconcile?.ok === true, { what: 'prod reconciled after its value was fixed' });
    expect((await liveIn(d, project.root, 'prod')).map((l) => [l.dashboardMetadata.name, l.tiles[0]?.markdown])).toEqual([['Hosts prod', 'production note']]);
    expect((await environments(d))[2]?.invalid).toEqual([]);

    expect((await d.stop('SIGTERM')).code).toBe(0);
    for (const env of ['dev', 'staging', 'prod']) expect((await expectConsistentArchive(join(project.root, 'events-archive'), env)).size).toBeGreaterThan(0);
    // No environment of dashcd.yaml is `local`: the embedded API never created it, nor simulated or archived into it.
    expect((await readdir(join(project.root, '.dashcd', 'env'))).sort()).toEqual(['dev', 'prod', 'staging']);
    expect((await readdir(join(project.root, 'events-archive'))).filter((name) => !name.startsWith('.')).sort()).toEqual(['dev', 'prod', 'staging']);
  });

  it("a file's own mistake skips that file only: the environment's other files are applied and their drift reverted, as without environments", async () => {
    // One file missing its owner stopped every write to the environment at each resync, drift repair included,
    // while /status said driftCount 0 (saves to other files were still applied, by the partial passes).
    const project = await scope.createProject({
      'dashcd.yaml': 'environments:\n  dev:\n',
      'dashboards/a.yaml': dashboardYaml('A'),
      'dashboards/broken.yaml': 'dashboardMetadata:\n  name: Broken\ntiles: []\n',
    });
    const d = await scope.startDaemon(['--poll', '60s', '--resync', '1s'], { cwd: project.root });
    const [dev] = await environments(d);
    expect(dev?.invalid.map((i) => i.file)).toEqual(['dashboards/broken.yaml']);
    expect(dev?.invalid[0]?.errors.join('\n')).toContain('dashboardMetadata.owner');
    const live = await liveIn(d, project.root, 'dev');
    expect(live.map((l) => l.dashboardMetadata.name)).toEqual(['A v1']);
    const token = await createToken(project.root, '.dashcd', 'ReadConfig,WriteConfig', 'dev');
    const id = dev?.files['dashboards/a.yaml']?.id ?? '';
    const url = `${d.url}/e/dev/api/config/v1/dashboards/${id}`;
    const current = (await api(url, { token })).json as { dashboardMetadata: Record<string, unknown> };
    expect((await api(url, { method: 'PUT', token, body: { ...current, dashboardMetadata: { ...current.dashboardMetadata, name: 'Edited by hand' } } })).status).toBe(204);
    await waitFor(async () => ((await api(url, { token })).json as Live).dashboardMetadata.name === 'A v1', { what: 'the drift in dev reverted with broken.yaml still invalid' });
    const after = (await environments(d))[0];
    expect(after?.driftCount).toBeGreaterThanOrEqual(1);
    expect(after?.invalid.map((i) => i.file)).toEqual(['dashboards/broken.yaml']);
  });

  it("a value one environment lacks, which another declares, is that environment's mistake: it stops its writes, as a wrong value does", async () => {
    // prod's `note` renamed `notes`: the files using it were skipped one by one and the rest applied, while a value
    // of the wrong type stopped the whole environment.
    const project = await scope.createProject({
      'dashcd.yaml': 'environments:\n  dev:\n    values: { note: dev note }\n  prod:\n    values: { notes: prod note }\n',
      'dashboards/hosts.yaml': hostsTemplate(),
      'dashboards/plain.yaml': dashboardYaml('Plain'),
    });
    const d = await scope.startDaemon(['--poll', '60s', '--resync', '60s'], { cwd: project.root });
    const [dev, prod] = await environments(d);
    expect(dev?.lastReconcile).toMatchObject({ ok: true });
    expect(prod?.lastReconcile).toMatchObject({ ok: false, error: 'values.note of environment prod makes files invalid; nothing was written to it until it is fixed' });
    expect(await liveIn(d, project.root, 'prod')).toEqual([]);
    expect((await liveIn(d, project.root, 'dev')).map((l) => l.dashboardMetadata.name).sort()).toEqual(['Hosts dev', 'Plain v1']);
  });

  it('--env reconciles only the chosen environments (a group stands for its members)', async () => {
    const project = await scope.createProject({ 'dashcd.yaml': config('152'), 'dashboards/hosts.yaml': HOSTS });
    const d = await scope.startDaemon(['--env', 'production'], { cwd: project.root });
    expect((await environments(d)).map((e) => [e.name, e.lastReconcile?.ok])).toEqual([['staging', true], ['prod', true]]);
    expect(await liveIn(d, project.root, 'dev')).toEqual([]);
    expect(await (await fetch(`${d.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it('a remote environment whose token variable is unset stops the start with exit 4 naming the variable', async () => {
    const project = await scope.createProject({
      'dashcd.yaml': 'environments:\n  dev:\n  prod:\n    target: https://prod.example.invalid\n    tokenEnv: PROD_TOKEN\n',
      'dashboards/hosts.yaml': HOSTS.replace('${{ values.height }}', '152').replace('${{ values.note }}', 'x'),
    });
    const started = scope.startDaemon([], { cwd: project.root, timeoutMs: 30_000 });
    await expect(started).rejects.toThrow(/exited with 4:[\s\S]*PROD_TOKEN is not set: prod's target \(https:\/\/prod\.example\.invalid, from dashcd\.yaml\) takes its token from PROD_TOKEN/);
  });

  it('a remote environment whose platform variable is unset fails its pass naming that variable (not DT_PLATFORM_TOKEN, which it never reads)', async () => {
    const target = await startTestServer();
    try {
      const project = await scope.createProject({
        'dashcd.yaml': `environments:\n  prod:\n    target: ${target.baseUrl}/e/local\n    tokenEnv: PROD_TOKEN\n    platformTarget: ${target.baseUrl}/e/local\n    platformTokenEnv: PROD_PLATFORM_TOKEN\n`,
        'dashboards/hosts.yaml': HOSTS.replace('${{ values.height }}', '152').replace('${{ values.note }}', 'x'),
        'dashboards/board.yaml': 'document:\n  kind: dashboard\n  name: Board\nversion: 21\ntiles: {}\nlayouts: {}\n',
      });
      const d = await scope.startDaemon([], { cwd: project.root, env: { PROD_TOKEN: target.token, DT_PLATFORM_TOKEN: 'never-read' } });
      const [prod] = await environments(d);
      expect(JSON.stringify(prod)).toContain(`PROD_PLATFORM_TOKEN is not set: prod's platform (${target.baseUrl}/e/local, from dashcd.yaml) takes its token from PROD_PLATFORM_TOKEN`);
      expect(JSON.stringify(prod)).not.toContain('set DT_PLATFORM_TOKEN');
      expect(prod?.lastReconcile?.ok).toBe(false);
    } finally {
      await target.close();
    }
  });
});
