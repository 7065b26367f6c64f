import { cp, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topLevelNames } from '../helpers/json-names.js';
import {
  createToken,
  dashboardYaml,
  expectConsistentArchive,
  metricValue,
  TOKEN_LIKE,
  waitFor,
  type DaemonChild,
} from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { api } from '../helpers/server.js';

const SAMPLE_DASHBOARDS = new URL('../../dashboards/', import.meta.url);
const SAMPLE_CONFIG = new URL('../../dashcd.yaml', import.meta.url);
const SAMPLE_ENVIRONMENTS = ['dev', 'staging', 'prod'];

const scope = daemonScopePerTest();

interface LiveDashboard {
  dashboardMetadata: { name: string };
}

async function live(d: DaemonChild, token: string, id: string, env = 'local'): Promise<LiveDashboard | undefined> {
  const response = await api(`${d.url}/e/${env}/api/config/v1/dashboards/${id}`, { token });
  return response.status === 200 ? (response.json as LiveDashboard) : undefined;
}

async function yamlFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.filter((e) => e.endsWith('.yaml')).map((e) => `dashboards/${e.split('\\').join('/')}`).sort();
}

describe('dashcd daemon on the embedded API', () => {
  it('applies every sample file in each sample environment at start (as npm start does), answers /healthz, /status and Prometheus /metrics, and stops on SIGTERM with consistent archives', async () => {
    const project = await scope.createProject();
    await cp(SAMPLE_DASHBOARDS, join(project.root, 'dashboards'), { recursive: true });
    await cp(SAMPLE_CONFIG, join(project.root, 'dashcd.yaml'));
    const files = await yamlFiles(join(project.root, 'dashboards'));
    expect(files.length).toBeGreaterThan(0);
    const d = await scope.startDaemon(['--simulate-events', '--poll', '200ms', '--resync', '60s'], { cwd: project.root });

    const { alive, environments = [] } = await d.status();
    expect(alive).toBe(true);
    expect(environments.map((e) => e.name)).toEqual(SAMPLE_ENVIRONMENTS);
    for (const status of environments) {
      expect(Object.keys(status.files).sort()).toEqual(files);
      expect(Object.values(status.files).map((f) => f.result)).toEqual(files.map(() => 'created'));
      expect(status).toMatchObject({ invalid: [], driftCount: 0, lastReconcile: { full: true, ok: true } });
    }
    const token = await createToken(project.root, '.dashcd', 'ReadConfig', 'prod');
    // The classic dashboards read back from the config API (the sample's documents: daemon-sample-project.test.ts).
    const prod = Object.values(environments[2]?.files ?? {}).filter((file) => file.kind === 'dashboard');
    expect(prod).toHaveLength(3);
    const reads = prod.map((file) => live(d, token, file.id ?? '', 'prod'));
    for (const dashboard of await Promise.all(reads)) expect(dashboard).toBeDefined();

    const health = await fetch(`${d.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const metrics = await fetch(`${d.url}/metrics`);
    expect(metrics.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const samples = await d.metrics();
    expect(metricValue(samples, 'dashcd_writes_total', { action: 'create' })).toBe(files.length * SAMPLE_ENVIRONMENTS.length);
    expect(metricValue(samples, 'dashcd_writes_total', { action: 'create', env: 'prod' })).toBe(files.length);
    expect(metricValue(samples, 'dashcd_reconciles_total', { result: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(samples, 'dashcd_reconcile_duration_seconds_count')).toBeGreaterThanOrEqual(1);

    await waitFor(async () => ((await d.status()).environments ?? []).every((e) => e.poller.eventsArchived > 0), { what: 'simulated events in every environment’s archive' });
    const stopped = await d.stop('SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
    for (const env of SAMPLE_ENVIRONMENTS) expect((await expectConsistentArchive(join(project.root, 'events-archive'), env)).size).toBeGreaterThan(0);

    const lines = d.stdout().trim().split('\n');
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    expect(lines.filter((l) => l.includes('"dashboard created"'))).toHaveLength(files.length * SAMPLE_ENVIRONMENTS.length);
    expect(lines.filter((l) => l.includes('"reconcile finished"')).length).toBeGreaterThanOrEqual(1);
    expect(lines.some((l) => l.includes('"events archived"'))).toBe(true);
    // First the full reconcile, then the poller: its first line comes after the startup pass's summary.
    const firstPass = lines.findIndex((l) => l.includes('"reconcile finished"'));
    const pollerLines = lines.flatMap((l, i) => (l.includes('"component":"poller"') ? [i] : []));
    expect(pollerLines[0]).toBeGreaterThan(firstPass);
    expect(lines[pollerLines[0] ?? -1]).toContain('"events poller started"');
    expect(lines.at(-1)).toContain('"daemon stopped"');
    expect(d.stdout()).not.toContain(token);
    expect(d.stdout() + d.stderr()).not.toMatch(TOKEN_LIKE);
  });

  it('reports the git commit it reconciled, re-applies a saved file, skips an invalid one with file:line:col while the others apply, heals it when fixed, and keeps a deleted file\'s dashboard', async () => {
    const project = await scope.createProject({
      'dashboards/a.yaml': dashboardYaml('A'),
      'dashboards/b.yaml': dashboardYaml('B'),
      'dashboards/c.yaml': dashboardYaml('C'),
    }, { git: true });
    const commit = (await project.git('rev-parse', 'HEAD')).trim();
    const d = await scope.startDaemon(['--poll', '60s', '--resync', '60s'], { cwd: project.root });
    expect((await d.status()).git).toMatchObject({ commit, branch: 'main', dirty: false });
    const token = await createToken(project.root, '.dashcd', 'ReadConfig');
    const ids = Object.fromEntries(Object.entries((await d.status()).files).map(([file, s]) => [file, s.id ?? '']));
    const nameOf = async (file: string): Promise<string | undefined> => (await live(d, token, ids[`dashboards/${file}`] ?? ''))?.dashboardMetadata.name;

    await project.write('dashboards/a.yaml', dashboardYaml('A', 'v2'));
    await waitFor(async () => (await nameOf('a.yaml')) === 'A v2', { what: 'the saved edit of a.yaml to go live' });
    expect((await d.status()).files['dashboards/a.yaml']?.result).toBe('updated');
    // The pass planned without git and read it after its writes: the status has the uncommitted edit.
    await waitFor(async () => (await d.status()).git?.dirty === true, { what: 'the status to say the work tree has uncommitted changes' });
    expect((await d.status()).git).toMatchObject({ commit, branch: 'main', dirty: true });

    // Invalid, and with an unknown key: only its error is logged ("applied without" the key would contradict it).
    await project.write('dashboards/b.yaml', dashboardYaml('B', 'v2').replace('top: 0', 'top: zero').replace('  owner:', '  sharred: true\n  owner:'));
    // An unknown key is a warning that validate prints: the daemon applied the file without a word about it.
    await project.write('dashboards/c.yaml', dashboardYaml('C', 'v2').replace('  owner:', '  sharred: true\n  owner:'));
    await waitFor(async () => (await nameOf('c.yaml')) === 'C v2', { what: 'c.yaml to go live next to an invalid b.yaml' });
    const broken = await waitFor(async () => (await d.status()).invalid.find((i) => i.file === 'dashboards/b.yaml'), { what: 'b.yaml listed invalid' });
    expect(broken.errors.join('\n')).toMatch(/^dashboards\/b\.yaml:8:\d+ {2}tiles\[0\]\.bounds\.top: /m);
    expect((await d.status()).files['dashboards/b.yaml']?.result).toBe('invalid');
    await waitFor(() => /"where":"dashboards\/b\.yaml:8:\d+ {2}tiles\[0\]\.bounds\.top: [^"]+",.*"msg":"invalid dashboard file; nothing of it is applied until it is fixed"/.test(d.stdout()), { what: 'the invalid file logged with file:line:col' });
    expect(await nameOf('b.yaml')).toBe('B v1');
    const warned = await waitFor(async () => d.stdout().split('\n').find((line) => line.includes('dashboard file warning')), { what: 'the warning logged' });
    expect(warned).toMatch(/"where":"dashboards\/c\.yaml:3:3 {2}warning: dashboardMetadata\.sharred: unknown key[^"]*did you mean shared\?"/);
    expect(d.stdout()).not.toMatch(/"where":"dashboards\/b\.yaml[^"]*warning/);

    await project.write('dashboards/b.yaml', dashboardYaml('B', 'v3'));
    await waitFor(async () => (await nameOf('b.yaml')) === 'B v3', { what: 'the fixed b.yaml to go live' });
    expect((await d.status()).invalid).toEqual([]);

    await project.remove('dashboards/c.yaml');
    const orphans = await waitFor(async () => ((await d.status()).orphans.length > 0 ? (await d.status()).orphans : undefined), { what: 'c.yaml\'s dashboard listed as an orphan' });
    expect(orphans).toEqual([{ id: ids['dashboards/c.yaml'], name: 'C v2', kind: 'dashboard' }]);
    expect(await nameOf('c.yaml')).toBe('C v2');
    expect(Object.keys((await d.status()).files)).not.toContain('dashboards/c.yaml');
    expect(metricValue(await d.metrics(), 'dashcd_writes_total', { action: 'delete' })).toBe(0);
    expect((await d.stop()).code).toBe(0);
    // Every line names each field once (the poller's named its environment twice).
    for (const line of d.stdout().split('\n').filter((l) => l.startsWith('{'))) {
      const names = topLevelNames(line);
      expect(names, line).toEqual([...new Set(names)]);
    }
  });
});
