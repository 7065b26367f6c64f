import { describe, expect, it } from 'vitest';
import { dashboardYaml, metricValue, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';

const scope = daemonScopePerTest();

const FILES = { 'dashboards/web.yaml': dashboardYaml('Web'), 'dashboards/db.yaml': dashboardYaml('DB'), 'dashboards/api.yaml': dashboardYaml('API') };

const linesWith = (d: DaemonChild, text: string): string[] => d.stdout().split('\n').filter((line) => line.includes(text));

/** Waits for `n` more full passes than now, so "only once" means once across several resyncs. */
async function fullPassesLater(d: DaemonChild, n: number): Promise<void> {
  const now = metricValue(await d.metrics(), 'dashcd_reconciles_total', { result: 'ok' });
  await waitFor(async () => metricValue(await d.metrics(), 'dashcd_reconciles_total', { result: 'ok' }) >= now + n, { what: `${n} more reconcile passes` });
}

describe('dashcd daemon and deleted files', () => {
  it('without pruning, a deleted file logs one line naming the dashboard it leaves behind, not one per resync', async () => {
    const project = await scope.createProject(FILES);
    const d = await scope.startDaemon(['--resync', '1s', '--poll', '60s'], { cwd: project.root });
    await project.remove('dashboards/db.yaml');
    await waitFor(async () => (await d.status()).orphans.length === 1, { what: 'the orphan to be listed' });
    await fullPassesLater(d, 3);
    const lines = linesWith(d, 'it stays on the target (pruning is off)');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({ name: 'DB v1', level: 40 });
  });

  it('prune: true in dashcd.yaml prunes; a refused prune is counted in dashcd_prune_refused_total and logged once', async () => {
    const project = await scope.createProject({ ...FILES, 'dashcd.yaml': 'prune: true\nmaxDelete: 1\n' });
    const d = await scope.startDaemon(['--resync', '1s', '--poll', '60s'], { cwd: project.root });
    await project.remove('dashboards/db.yaml');
    await waitFor(async () => (await d.status()).orphans.length === 0 && linesWith(d, 'orphan dashboard deleted').length === 1, { what: 'the orphan to be pruned' });

    // Each full pass reads dashcd.yaml: from now on no deletion is allowed.
    await project.write('dashcd.yaml', 'prune: true\nmaxDelete: 0\n');
    await fullPassesLater(d, 1);
    await project.remove('dashboards/web.yaml');
    // Counted by every full pass (resync every second), which counts itself done only after: wait on the count.
    await waitFor(async () => metricValue(await d.metrics(), 'dashcd_prune_refused_total') >= 3, { what: 'the prune to be refused by three passes' });
    expect(linesWith(d, 'prune refused; nothing deleted')).toHaveLength(1);
    expect((await d.status()).orphans.map((o) => o.name)).toEqual(['Web v1']);
  });

  it("logs a file's warning once, across resyncs and a pass over an invalid dashcd.yaml (then it was logged again)", async () => {
    const project = await scope.createProject({ ...FILES, 'dashboards/web.yaml': dashboardYaml('Web').replace('  owner:', '  sharred: true\n  owner:') });
    const d = await scope.startDaemon(['--resync', '1s', '--poll', '60s'], { cwd: project.root });
    await waitFor(() => linesWith(d, 'dashboard file warning').length === 1, { what: 'the warning logged' });
    await project.write('dashcd.yaml', 'prune: maybe\n');
    // A resync too (a full pass, every second), not only the pass the edit started.
    const failed = metricValue(await d.metrics(), 'dashcd_reconciles_total', { result: 'failed' });
    await waitFor(async () => metricValue(await d.metrics(), 'dashcd_reconciles_total', { result: 'failed' }) >= failed + 2, { what: 'two passes over the invalid dashcd.yaml' });
    await project.write('dashcd.yaml', 'prune: false\n');
    await waitFor(async () => (await d.status()).lastReconcile?.ok === true, { what: 'a pass over the fixed dashcd.yaml' });
    await fullPassesLater(d, 1);
    expect(linesWith(d, 'dashboard file warning')).toHaveLength(1);
  });
});
