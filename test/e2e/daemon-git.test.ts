import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createToken, dashboardYaml, metricValue, waitFor } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, liveName, pushDashboard, sourceStatus, waitForLive } from '../helpers/git-scope.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

const INVALID = 'dashboardMetadata:\n  name: broken\ntiles: not-a-list\n';

// Each test pushes and waits for the daemon several times over; on a loaded 2-core machine that is minutes, not seconds.
describe('dashcd daemon --repo', { timeout: 120_000 }, () => {
  it('reconciles the pushed commit within the fetch interval, names it in /status, metrics and logs, and goes back on a force-push', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'sales', 'v1', { 'dashcd.yaml': 'ignore: []\n' });
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    const synced = await waitForLive(d, first);
    expect(synced.live).toMatchObject({ ref: 'refs/heads/main', author: 'Dana Dashboard <dana@example.com>', subject: 'sales v1' });
    expect(first.startsWith(synced.live?.shortCommit ?? '-')).toBe(true);
    expect(synced).toMatchObject({ env: 'local', pending: null, stale: false, lastFetch: { ok: true } });
    expect(Date.parse(synced.live?.fetchedAt ?? '')).toBeLessThanOrEqual(Date.parse(synced.live?.appliedAt ?? ''));
    const id = (await d.status()).files['dashboards/sales.yaml']?.id ?? '';
    const token = await createToken(cwd, '.dashcd', 'ReadConfig');
    expect(await liveName(d, token, id)).toBe('sales v1');

    const second = await pushDashboard(remote, 'sales', 'v2');
    await waitForLive(d, second);
    expect(await liveName(d, token, id)).toBe('sales v2');
    const samples = await d.metrics();
    expect(metricValue(samples, 'dashcd_sync_revision_info', { env: 'local', revision: second })).toBe(1);
    expect(samples.filter((s) => s.name === 'dashcd_sync_revision_info')).toHaveLength(1);
    expect(metricValue(samples, 'dashcd_last_fetch_timestamp_seconds')).toBeGreaterThan(Date.parse(synced.live?.appliedAt ?? '') / 1000 - 60);
    const updated = d.stdout().split('\n').filter((line) => line.includes('"dashboard updated"'));
    expect(updated.length).toBeGreaterThan(0);
    expect(updated.every((line) => line.includes(`"revision":"${second}"`))).toBe(true);

    await remote.resetTo(first);
    await remote.push();
    await waitForLive(d, first);
    expect(await liveName(d, token, id)).toBe('sales v1');
  });

  it('an unreachable remote keeps the last good revision live, /healthz says stale and why, and the next fetch after it is back recovers', async () => {
    const { remote, server, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'ops', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, first);
    await server.stop();
    const second = await pushDashboard(remote, 'ops', 'v2');
    const health = await waitFor(async () => {
      const body = (await (await fetch(`${d.url}/healthz`)).json()) as { status: string; stale?: string[] };
      return body.status === 'stale' ? body : undefined;
    }, { what: 'healthz stale' });
    expect(health.stale?.[0]).toMatch(/^fetch failed: git fetch failed: /);
    const source = await sourceStatus(d);
    expect(source).toMatchObject({ live: { commit: first }, lastFetch: { ok: false }, stale: true });
    expect(metricValue(await d.metrics(), 'dashcd_fetch_failures_total')).toBeGreaterThan(0);

    await server.start();
    await waitForLive(d, second);
    expect(await (await fetch(`${d.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });

  it('a commit with an invalid file is reported with its diagnostics and applies nothing; the fix after it applies', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'good', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, first);
    const id = (await d.status()).files['dashboards/good.yaml']?.id ?? '';
    const token = await createToken(cwd, '.dashcd', 'ReadConfig');
    const bad = await pushDashboard(remote, 'good', 'v2', { 'dashboards/broken.yaml': INVALID });
    const pending = await waitFor(async () => {
      const source = await sourceStatus(d);
      return source.pending?.commit === bad && source.pending.invalid.length > 0 ? source : undefined;
    }, { what: 'the invalid commit reported' });
    expect(pending.pending?.invalid.join('\n')).toContain('dashboards/broken.yaml');
    expect(pending).toMatchObject({ live: { commit: first }, stale: true });
    expect(await liveName(d, token, id)).toBe('good v1');

    const fixed = await pushDashboard(remote, 'good', 'v3', { 'dashboards/broken.yaml': null });
    await waitForLive(d, fixed);
    expect(await liveName(d, token, id)).toBe('good v3');
  });

  it('with --skip-invalid the valid files of a commit with an invalid one are applied', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'good', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s', '--skip-invalid'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, first);
    const id = (await d.status()).files['dashboards/good.yaml']?.id ?? '';
    const token = await createToken(cwd, '.dashcd', 'ReadConfig');
    const mixed = await pushDashboard(remote, 'good', 'v2', { 'dashboards/broken.yaml': INVALID });
    await waitForLive(d, mixed);
    expect(await liveName(d, token, id)).toBe('good v2');
    expect((await d.status()).invalid.map((i) => i.file)).toEqual(['dashboards/broken.yaml']);
  });

  it('a deleted branch keeps the last good revision and says so', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await remote.commit({ 'dashboards/a.yaml': dashboardYaml('a') }, 'a');
    await remote.push('live');
    const d = await scope.startDaemon(['--repo', url, '--branch', 'live', '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, first);
    await remote.deleteBranch('live');
    const source = await waitFor(async () => ((await sourceStatus(d)).lastFetch?.ok === false ? sourceStatus(d) : undefined), { what: 'a failed fetch' });
    expect(source.staleReasons.join()).toContain(`no branch live in ${url}`);
    expect(source.live?.commit).toBe(first);
  });

  it('an HTTPS token reaches the remote but never the data dir, the mirror config or the logs', async () => {
    const secret = 'ghp_TestToken0123456789abcdefABCDEF';
    const { remote, url, cwd } = await fixture({ token: secret });
    const first = await pushDashboard(remote, 'a', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000, env: { DASHCD_GIT_TOKEN: secret } });
    await waitForLive(d, first);
    const encoded = Buffer.from(`x-access-token:${secret}`).toString('base64');
    const files = (await readdir(join(cwd, '.dashcd'), { recursive: true })).map((f) => join(cwd, '.dashcd', f));
    const leaks: string[] = [];
    for (const file of files) {
      const bytes = await readFile(file).catch(() => Buffer.alloc(0));
      if (bytes.includes(secret) || bytes.includes(encoded)) leaks.push(file);
    }
    expect(leaks).toEqual([]);
    await d.stop('SIGTERM');
    expect(d.stdout() + d.stderr()).not.toContain(secret);
    expect(d.stdout() + d.stderr()).not.toContain(encoded);
  });
});
