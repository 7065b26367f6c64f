import { describe, expect, it } from 'vitest';
import { EnvironmentsStatusJson, type SourceStatusJson } from '../../src/daemon/status-schema.js';
import { createToken, metricValue, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, liveName, pushDashboard, sourceStatus, waitForLive } from '../helpers/git-scope.js';
import { api } from '../helpers/server.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

/** dev follows the daemon's branch (main); prod follows release tags: promoting is tagging. */
const CONFIG = `environments:
  dev:
  prod:
    source: { tagPattern: 'release-*' }
`;

function hosts(marker: string): string {
  return `dashboardMetadata:\n  name: Hosts \${{ env.name }} ${marker}\n  owner: ops\ntiles: []\n`;
}

async function liveIn(d: DaemonChild, env: string): Promise<SourceStatusJson['live'] | undefined> {
  const environments = EnvironmentsStatusJson.parse(await d.status()).environments;
  return environments.find((e) => e.name === env)?.source?.live ?? undefined;
}

function waitForLiveIn(d: DaemonChild, env: string, commit: string): Promise<unknown> {
  return waitFor(async () => (await liveIn(d, env))?.commit === commit, { timeoutMs: 60_000, what: `${commit.slice(0, 7)} live in ${env}` });
}

async function names(d: DaemonChild, cwd: string, env: string): Promise<string[]> {
  const token = await createToken(cwd, '.dashcd', 'ReadConfig', env);
  const list = await api(`${d.url}/e/${env}/api/config/v1/dashboards`, { token });
  return (list.json as { dashboards: { name: string }[] }).dashboards.map((x) => x.name);
}

describe('dashcd daemon --repo with environments', { timeout: 120_000 }, () => {
  it('each environment follows its own branch or tags; /status and metrics name the revision live in each; a new tag promotes prod', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await remote.commit({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': hosts('v1') }, 'hosts v1');
    await remote.push();
    await remote.pushTag('release-1');
    const second = await remote.commit({ 'dashboards/hosts.yaml': hosts('v2') }, 'hosts v2');
    await remote.push();

    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitForLiveIn(d, 'dev', second);
    await waitForLiveIn(d, 'prod', first);
    const prod = await liveIn(d, 'prod');
    expect(prod).toMatchObject({ commit: first, ref: 'refs/tags/release-1', subject: 'hosts v1', author: 'Dana Dashboard <dana@example.com>' });
    expect(first.startsWith(prod?.shortCommit ?? '-')).toBe(true);
    expect(Date.parse((await liveIn(d, 'dev'))?.committedAt ?? '')).toBeGreaterThan(0);
    expect(await names(d, cwd, 'dev')).toEqual(['Hosts dev v2']);
    expect(await names(d, cwd, 'prod')).toEqual(['Hosts prod v1']);
    const samples = await d.metrics();
    expect(metricValue(samples, 'dashcd_sync_revision_info', { env: 'dev', revision: second })).toBe(1);
    expect(metricValue(samples, 'dashcd_sync_revision_info', { env: 'prod', revision: first })).toBe(1);

    // Promotion is a git operation: tag what dev runs.
    await remote.pushTag('release-2');
    await waitForLiveIn(d, 'prod', second);
    await waitFor(async () => (await names(d, cwd, 'prod'))[0] === 'Hosts prod v2', { what: 'prod promoted' });
    const updated = d.stdout().split('\n').filter((line) => line.includes('"dashboard updated"') && line.includes('"env":"prod"'));
    expect(updated.length).toBeGreaterThan(0);
    expect(updated.every((line) => line.includes(`"revision":"${second}"`))).toBe(true);
    const after = await d.metrics();
    expect(metricValue(after, 'dashcd_sync_revision_info', { env: 'prod', revision: second })).toBe(1);
    expect(metricValue(after, 'dashcd_sync_revision_info', { env: 'prod', revision: first })).toBe(0);
  });

  it('environments following one branch take each push with no fetch failure counted or logged, each line naming its environment', async () => {
    const { remote, url, cwd } = await fixture();
    const both = 'environments:\n  dev:\n  prod:\n';
    let commit = await remote.commit({ 'dashcd.yaml': both, 'dashboards/hosts.yaml': hosts('v1') }, 'hosts v1');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    for (let round = 2; round <= 4; round++) {
      await waitForLiveIn(d, 'dev', commit);
      await waitForLiveIn(d, 'prod', commit);
      commit = await remote.commit({ 'dashboards/hosts.yaml': hosts(`v${round}`) }, `hosts v${round}`);
      // Both lanes poll together: they raced for the mirror's ref, and one of them failed ("cannot lock ref").
      await remote.push();
    }
    await waitForLiveIn(d, 'dev', commit);
    await waitForLiveIn(d, 'prod', commit);
    expect(d.stdout()).not.toContain('fetch failed');
    const samples = await d.metrics();
    for (const env of ['dev', 'prod']) expect(metricValue(samples, 'dashcd_fetch_failures_total', { env }) ?? 0, env).toBe(0);
    const fetched = d.stdout().split('\n').filter((line) => line.includes('"new revision fetched"') && line.includes(`"revision":"${commit}"`));
    expect(fetched.map((line) => /"env":"(\w+)"/.exec(line)?.[1]).sort()).toEqual(['dev', 'prod']);
  });

  it('a daemon started without environments never applies a later commit that declares some (templates would go out unrendered): it stays pending with the reason', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await pushDashboard(remote, 'hosts', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s', '--skip-invalid'], { cwd, timeoutMs: 60_000 });
    await waitForLive(d, first);
    const later = await remote.commit({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': hosts('v2') }, 'environments');
    await remote.push();
    const pending = await waitFor(async () => {
      const source = await sourceStatus(d);
      return source.pending?.commit === later && source.pending.invalid.length > 0 ? source : undefined;
    }, { what: 'the commit with environments refused' });
    expect(pending.pending?.invalid.join('\n')).toContain('dashcd.yaml declares environments, but this run reconciles one target; restart the daemon');
    expect(pending.live?.commit).toBe(first);
    const token = await createToken(cwd, '.dashcd', 'ReadConfig');
    const id = (await d.status()).files['dashboards/hosts.yaml']?.id ?? '';
    expect(await liveName(d, token, id)).toBe('hosts v1');
  });

  it('a dashcd.yaml that would never finish reading (a value that contains itself) is a problem of the commit: the daemon starts, says where, and takes the fix', async () => {
    const { remote, url, cwd } = await fixture();
    await remote.commit({ 'dashcd.yaml': 'values:\n  loop: &a [1, *a]\n', 'dashboards/hosts.yaml': 'dashboardMetadata:\n  name: Hosts\n  owner: ops\ntiles: []\n' }, 'hostile config');
    await remote.push();
    // It used to exit at start ("Maximum call stack size exceeded"): under a supervisor, a restart loop until the branch was rewritten.
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitFor(() => /dashcd\.yaml:2:\d+  alias \*a is inside the node its anchor &a names/.test(d.stdout()), { what: 'the config problem logged with its place' });
    expect((await fetch(`${d.url}/healthz`)).status).toBeLessThan(500);
    const fixed = await remote.commit({ 'dashcd.yaml': 'ignore: []\n' }, 'fix config');
    await remote.push();
    await waitForLive(d, fixed);
  });
});
