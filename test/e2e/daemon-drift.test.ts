import { describe, expect, it } from 'vitest';
import type { Project } from '../helpers/cli.js';
import { createToken, dashboardYaml, metricValue, TOKEN_LIKE, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { api } from '../helpers/server.js';

const scope = daemonScopePerTest();

interface Drifting {
  project: Project;
  d: DaemonChild;
  token: string;
  url: string;
  name(): Promise<string>;
}

/** A daemon over two files, resyncing every second, and one of its dashboards edited through the API. */
async function driftOneDashboard(extraArgs: string[]): Promise<Drifting> {
  const project = await scope.createProject({ 'dashboards/web.yaml': dashboardYaml('Web'), 'dashboards/db.yaml': dashboardYaml('DB') });
  const d = await scope.startDaemon(['--resync', '1s', '--poll', '60s', ...extraArgs], { cwd: project.root });
  const token = await createToken(project.root, '.dashcd', 'ReadConfig,WriteConfig');
  const id = (await d.status()).files['dashboards/web.yaml']?.id ?? '';
  const url = `${d.url}/e/local/api/config/v1/dashboards/${id}`;
  const name = async (): Promise<string> => ((await api(url, { token })).json as { dashboardMetadata: { name: string } }).dashboardMetadata.name;
  const current = (await api(url, { token })).json as { dashboardMetadata: Record<string, unknown> };
  const edited = { ...current, dashboardMetadata: { ...current.dashboardMetadata, name: 'Edited by hand' } };
  expect((await api(url, { method: 'PUT', token, body: edited })).status).toBe(204);
  return { project, d, token, url, name };
}

describe('dashcd daemon and drift', () => {
  it('reverts a dashboard edited through the API at the next resync, and counts the drift in /status and /metrics', async () => {
    const { d, token, name } = await driftOneDashboard([]);
    await waitFor(async () => (await name()) === 'Web v1', { what: 'the hand edit to be reverted' });
    const status = await d.status();
    expect(status.driftCount).toBeGreaterThanOrEqual(1);
    expect(status.drifted).toEqual([]);
    expect(metricValue(await d.metrics(), 'dashcd_drift_found_total')).toBeGreaterThanOrEqual(1);
    const warning = d.stdout().split('\n').find((line) => line.includes('drift found; reverting'));
    // The patch that reverts it, with the value written and the hand-edited value found live.
    expect(JSON.parse(warning ?? '{}')).toMatchObject({
      file: 'dashboards/web.yaml',
      patch: [{ op: 'replace', path: '/dashboardMetadata/name', value: 'Web v1', live: 'Edited by hand' }],
    });
    expect(d.stdout()).not.toContain(token);
    expect(d.stdout()).not.toMatch(TOKEN_LIKE);
  });

  it('with --no-self-heal reports the drift as drift-reported and leaves it live, until the file itself changes', async () => {
    const { project, d, name } = await driftOneDashboard(['--no-self-heal']);
    const reported = await waitFor(async () => {
      const status = await d.status();
      return status.files['dashboards/web.yaml']?.result === 'drift-reported' ? status : undefined;
    }, { what: 'the drift to be reported' });
    expect(reported.drifted).toEqual(['dashboards/web.yaml']);
    expect(reported.files['dashboards/db.yaml']?.result).toBe('unchanged');
    const driftsSeen = reported.driftCount;
    await waitFor(async () => (await d.status()).driftCount > driftsSeen, { what: 'another resync finding the drift again' });
    expect(await name()).toBe('Edited by hand');
    const report = d.stdout().split('\n').find((line) => line.includes('drift found; reporting only'));
    expect(JSON.parse(report ?? '{}')).toMatchObject({ selfHeal: false, patch: [{ op: 'replace', path: '/dashboardMetadata/name', value: 'Web v1', live: 'Edited by hand' }] });
    const samples = await d.metrics();
    expect(metricValue(samples, 'dashcd_writes_total', { action: 'update' })).toBe(0);
    expect(metricValue(samples, 'dashcd_drifted_dashboards')).toBe(1);
    expect(metricValue(samples, 'dashcd_drift_found_total')).toBeGreaterThanOrEqual(2);

    await project.write('dashboards/web.yaml', dashboardYaml('Web', 'v2'));
    await waitFor(async () => (await name()) === 'Web v2', { what: 'a changed file to win over the hand edit' });
    expect((await d.status()).drifted).toEqual([]);
    expect(metricValue(await d.metrics(), 'dashcd_drifted_dashboards')).toBe(0);
  });
});
