import { describe, expect, it } from 'vitest';
import { EnvironmentsStatusJson, type SourceStatusJson } from '../../src/daemon/status-schema.js';
import { createToken, dashboardYaml, waitFor, type DaemonChild } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { gitFixturePerTest } from '../helpers/git-scope.js';
import { api } from '../helpers/server.js';

const scope = daemonScopePerTest();
const fixture = gitFixturePerTest(scope);

/** One embedded environment, `dev` (`/e/dev`), where people also make dashboards in the app. */
const DEV = 'environments:\n  dev:\n';
const TAG_REFUSED = "dashcd.yaml's ownershipTag is 'team-x', not the operator's 'managed-by:dashcd' (--ownership-tag): prune deletes what carries the tag, so only the operator chooses it";
const LIMIT_REFUSED = "dashcd.yaml's maxDelete 1000 is more than the 5 deletions per pass the operator allows (--max-delete)";

const logged = (d: DaemonChild, msg: string): Array<Record<string, unknown>> =>
  d
    .stdout()
    .split('\n')
    .filter((line) => line.includes(`"msg":"${msg}`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The source block of the embedded environment `dev` (present once it has fetched). */
async function devSource(d: DaemonChild): Promise<SourceStatusJson | undefined> {
  return EnvironmentsStatusJson.parse(await d.status()).environments.find((e) => e.name === 'dev')?.source;
}

function waitForLiveInDev(d: DaemonChild, commit: string): Promise<unknown> {
  return waitFor(async () => (await devSource(d))?.live?.commit === commit, { what: `${commit.slice(0, 7)} live in dev` });
}

const dashboardsOf = (d: DaemonChild): string => `${d.url}/e/dev/api/config/v1/dashboards`;

/** A dashboard made in the app by a person, tagged as their team tags its dashboards. */
async function humanDashboard(d: DaemonChild, token: string): Promise<string> {
  const body = { dashboardMetadata: { name: 'Human-made CEO dashboard', owner: 'ceo@example.com', tags: ['team-x'] }, tiles: [] };
  const created = await api(dashboardsOf(d), { method: 'POST', token, body });
  expect(created.status, created.text).toBe(201);
  return (created.json as { id: string }).id;
}

async function liveName(d: DaemonChild, token: string, id: string): Promise<string | undefined> {
  const response = await api(`${dashboardsOf(d)}/${id}`, { token });
  return response.status === 200 ? (response.json as { dashboardMetadata: { name: string } }).dashboardMetadata.name : undefined;
}

// Pushes and waits on the daemon several times: generous on a loaded 2-core machine.
describe('dashcd daemon --repo and the ownership tag', { timeout: 120_000 }, () => {
  it("refuses a commit that picks its own ownership tag and deletion limit, so a person's dashboard carrying that tag survives; the next commit with the operator's tag is applied and prunes only what dashcd made", async () => {
    const { remote, url, cwd } = await fixture();
    const files = { 'dashcd.yaml': `prune: true\n${DEV}`, 'dashboards/sales.yaml': dashboardYaml('sales'), 'dashboards/ops.yaml': dashboardYaml('ops') };
    const first = await remote.commit(files, 'sales and ops');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s'], { cwd, timeoutMs: 60_000 });
    await waitForLiveInDev(d, first);
    const token = await createToken(cwd, '.dashcd', 'ReadConfig,WriteConfig', 'dev');
    const human = await humanDashboard(d, token);

    const takeover = await remote.commit({ 'dashcd.yaml': `ownershipTag: team-x\nprune: true\nmaxDelete: 1000\n${DEV}` }, 'own what team-x tagged');
    await remote.push();
    // Either outcome ends the wait: refused (pending with reasons) or, without the operator's limits, applied.
    const seen = await waitFor(async () => {
      const source = await devSource(d);
      return source?.pending?.commit === takeover || source?.live?.commit === takeover ? source : undefined;
    }, { what: 'the takeover commit fetched' });
    expect(seen).toMatchObject({ live: { commit: first }, pending: { commit: takeover, refused: [TAG_REFUSED, LIMIT_REFUSED] }, stale: true });
    expect(seen.staleReasons.join('\n')).toContain(`refused, nothing of it is applied: ${TAG_REFUSED}`);
    const warnings = logged(d, 'revision refused: ');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ revision: takeover, refused: [TAG_REFUSED, LIMIT_REFUSED], level: 40 });
    expect(await liveName(d, token, human)).toBe('Human-made CEO dashboard');

    // Back to the operator's tag, with a file removed: applied, and prune deletes the dashboard dashcd made, only it.
    const kept = await remote.commit({ 'dashcd.yaml': `prune: true\n${DEV}`, 'dashboards/ops.yaml': null }, 'drop ops');
    await remote.push();
    await waitForLiveInDev(d, kept);
    expect(logged(d, 'orphan dashboard deleted').map((line) => line.name)).toEqual(['ops v1']);
    expect(await liveName(d, token, human)).toBe('Human-made CEO dashboard');
    expect((await devSource(d))?.pending).toBeNull();
  });

  it("takes the operator's own tag and ceiling from --ownership-tag and --max-delete: a commit within them is applied, and its own maxDelete, not the ceiling, bounds a pass", async () => {
    const { remote, url, cwd } = await fixture();
    const config = `ownershipTag: owned-by:ops\nmaxDelete: 2\nprune: true\n${DEV}`;
    const first = await remote.commit({ 'dashcd.yaml': config, 'dashboards/a.yaml': dashboardYaml('a'), 'dashboards/b.yaml': dashboardYaml('b'), 'dashboards/c.yaml': dashboardYaml('c') }, 'three');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s', '--ownership-tag', 'owned-by:ops', '--max-delete', '20'], { cwd, timeoutMs: 60_000 });
    await waitForLiveInDev(d, first);
    const token = await createToken(cwd, '.dashcd', 'ReadConfig', 'dev');
    const live = async (): Promise<{ id: string; name: string }[]> => ((await api(dashboardsOf(d), { token })).json as { dashboards: { id: string; name: string }[] }).dashboards;
    const tags = await Promise.all((await live()).map(async ({ id }) => ((await api(`${dashboardsOf(d)}/${id}`, { token })).json as { dashboardMetadata: { tags?: string[] } }).dashboardMetadata.tags));
    expect(tags).toEqual([['owned-by:ops'], ['owned-by:ops'], ['owned-by:ops']]);

    // Three files removed under the commit's maxDelete 2: the pull request's plan refuses that prune, so the daemon must too.
    const emptied = await remote.commit({ 'dashboards/a.yaml': null, 'dashboards/b.yaml': null, 'dashboards/c.yaml': null, 'dashboards/d.yaml': dashboardYaml('d') }, 'replace all');
    await remote.push();
    await waitForLiveInDev(d, emptied);
    await waitFor(() => logged(d, 'prune refused; nothing deleted').length > 0, { what: 'the prune refused by the commit\'s maxDelete' });
    expect((await live()).map((x) => x.name).sort()).toEqual(['a v1', 'b v1', 'c v1', 'd v1']);
  });
  it('bounds a commit that sets no maxDelete by a --max-delete below the default: three deletions are refused under --max-delete 2', async () => {
    const { remote, url, cwd } = await fixture();
    const first = await remote.commit({ 'dashcd.yaml': `prune: true\n${DEV}`, 'dashboards/a.yaml': dashboardYaml('a'), 'dashboards/b.yaml': dashboardYaml('b'), 'dashboards/c.yaml': dashboardYaml('c') }, 'three');
    await remote.push();
    const d = await scope.startDaemon(['--repo', url, '--fetch', '1s', '--max-delete', '2'], { cwd, timeoutMs: 60_000 });
    await waitForLiveInDev(d, first);
    const token = await createToken(cwd, '.dashcd', 'ReadConfig', 'dev');
    const names = async (): Promise<string[]> => ((await api(dashboardsOf(d), { token })).json as { dashboards: { name: string }[] }).dashboards.map((x) => x.name).sort();
    // The default (5) would allow three deletions; the operator's 2 does not.
    const emptied = await remote.commit({ 'dashboards/a.yaml': null, 'dashboards/b.yaml': null, 'dashboards/c.yaml': null, 'dashboards/d.yaml': dashboardYaml('d') }, 'replace all');
    await remote.push();
    await waitForLiveInDev(d, emptied);
    await waitFor(() => logged(d, 'prune refused; nothing deleted').length > 0, { what: 'the prune refused by the operator\'s --max-delete' });
    expect(await names()).toEqual(['a v1', 'b v1', 'c v1', 'd v1']);
  });
});
