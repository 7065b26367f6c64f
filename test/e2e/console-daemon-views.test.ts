import { describe, expect, it } from 'vitest';
import { dashboardYaml } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest, pushDashboard, waitForLive } from '../helpers/git-scope.js';
import { startProxiedTarget } from '../helpers/proxied-target.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

async function html(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.text();
}

/** name → data-status of every dashboard row, and each row's key. */
function rows(page: string): { name: string; status: string; key: string }[] {
  return [...page.matchAll(/<tr class="dashboard" data-status="(\w+)" data-key="([^"]+)"[^>]*>[\s\S]*?<a href="[^"]*">([^<]*)<\/a>/g)].map((m) => ({ status: m[1] ?? '', key: m[2] ?? '', name: m[3] ?? '' }));
}

describe('the daemon console shows what the last pass knew', { timeout: 120_000 }, () => {
  it('page views send no request to the target: 10 views of 6 dashboards, and each dashboard page, make zero GETs', async () => {
    const target = await startProxiedTarget();
    try {
      const files = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => [`dashboards/${n}.yaml`, dashboardYaml(`Board ${n}`)]));
      const project = await scope.createProject(files);
      const d = await scope.startDaemon(['--resync', '1h', '--poll', '1h'], { cwd: project.root, env: target.env });
      const env = /data-env="([^"]+)"/.exec(await html(`${d.url}/ui`))?.[1] ?? '';
      const dashboardReads = (): number => target.proxy.requests.filter((r) => r.path.includes('/api/config/v1/dashboards')).length;
      const before = dashboardReads();
      let listed: ReturnType<typeof rows> = [];
      for (let view = 0; view < 10; view++) listed = rows(await html(`${d.url}/ui/e/${env}`));
      expect(listed.map((r) => [r.name, r.status]).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((n) => [`Board ${n} v1`, 'synced']));
      for (const row of listed) expect(await html(`${d.url}/ui/e/${env}/dashboard?key=${encodeURIComponent(row.key)}`)).toContain('class="picture layout"');
      expect(dashboardReads()).toBe(before);
    } finally {
      await scope.stopAll();
      await target.close();
    }
  });

  it('following a repository (--repo), the console lists the pass results and each dashboard page answers', async () => {
    const { remote, url, cwd } = await fixture();
    await pushDashboard(remote, 'sales', 'v1');
    const commit = await pushDashboard(remote, 'ops', 'v1');
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    const live = await waitForLive(d, commit);
    const listed = rows(await html(`${d.url}/ui/e/local`));
    expect(listed.map((r) => [r.name, r.status]).sort()).toEqual([['ops v1', 'synced'], ['sales v1', 'synced']]);
    for (const row of listed) expect(await html(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent(row.key)}`)).toContain('class="picture layout"');
    expect(await html(`${d.url}/ui`)).toContain(live.live?.shortCommit ?? '-');
  });
});
