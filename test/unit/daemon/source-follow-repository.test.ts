import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonStatus } from '../../../src/daemon/daemon-status.js';
import { openRepoFollowing, type RepoOptions } from '../../../src/daemon/daemon-repo.js';
import { followRepository } from '../../../src/daemon/follow-repository.js';
import { SourceStatus } from '../../../src/daemon/source-status.js';
import { openGitSource } from '../../../src/source/git-source.js';
import { createGitRemote } from '../../helpers/git-remote.js';
import { captureLog } from '../../helpers/log-capture.js';
import { waitFor } from '../../helpers/wait.js';

const started: { stop: AbortController; dir: string }[] = [];
afterEach(async () => {
  for (const { stop, dir } of started.splice(0)) {
    stop.abort();
    await rm(dir, { recursive: true, force: true });
  }
});

/** A daemon's repository following, as `runDaemon` wires it, on a file:// remote; passes apply whatever they read. */
async function follow(url: (dir: string) => Promise<string>, options: Partial<RepoOptions> = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'dashcd-follow-'));
  const stop = new AbortController();
  started.push({ stop, dir });
  const { lines, log } = captureLog();
  const repo: RepoOptions = { url: await url(dir), follow: { branch: 'main' }, path: 'dashboards', fetchMs: 60_000, skipInvalid: false, allowTargets: [], ...options };
  const following = await openRepoFollowing(repo, { cwd: dir, dataDir: '.dashcd', log });
  const status = new DaemonStatus();
  let passes = 0;
  const { state } = await following.attach(status, 'local', () => {
    passes++;
    const tree = state.next();
    if (tree) state.settled(tree, { kind: 'applied' });
  });
  return { dir, lines, following, state, passes: () => passes, start: () => following.start(stop.signal) };
}

const warnings = (lines: Array<Record<string, unknown>>): Array<Record<string, unknown>> => lines.filter((line) => line.level === 40 || line.level === 'warn');

describe('following a repository', { timeout: 30_000 }, () => {
  it('a wrong URL logs git’s cause, and says no revision is live rather than that the live one stays', async () => {
    const { lines, state, start } = await follow(async (dir) => pathToFileURL(join(dir, 'no-such-repo.git')).href);
    start();
    const warning = await waitFor(() => warnings(lines)[0], { what: 'a fetch failure logged' });
    expect(warning.msg).toBe('fetch failed; no revision is live yet');
    expect(warning.err).toMatch(/^git fetch failed: fatal: '.*no-such-repo\.git' does not appear to be a git repository/);
    expect(warning.err).not.toMatch(/failed: {2}\//);
    expect(state.toJSON().lastFetch?.error).toBe(warning.err);
  });

  it('once a revision is live, a failed fetch says the live revision stays and names it', async () => {
    let bare = '';
    const { lines, state, start } = await follow(async (dir) => {
      const remote = await createGitRemote(dir);
      await remote.commit({ 'dashboards/a.yaml': 'x: 1\n' }, 'one');
      await remote.push();
      bare = remote.bareDir;
      return remote.fileUrl;
    }, { fetchMs: 1000 });
    start();
    const live = await waitFor(() => state.liveCommit(), { what: 'a live commit' });
    await rm(bare, { recursive: true, force: true });
    const warning = await waitFor(() => warnings(lines)[0], { what: 'a fetch failure logged' });
    expect(warning).toMatchObject({ msg: 'fetch failed; the live revision stays', live });
  });

  it('refuses a commit whose dashcd.yaml sends a daemon variable to a host the operator did not allow, and applies the next allowed one', async () => {
    let push: (yaml: string) => Promise<string> = async () => '';
    const { lines, following, state, passes, start } = await follow(async (dir) => {
      const remote = await createGitRemote(dir);
      push = async (yaml) => {
        const sha = await remote.commit({ 'dashcd.yaml': yaml, 'dashboards/a.yaml': `x: ${yaml.length}\n` }, 'config');
        await remote.push();
        return sha;
      };
      return remote.fileUrl;
    }, { fetchMs: 1000, allowTargets: [{ tokenEnv: 'DT_PROD_TOKEN', url: 'https://prod.example.com' }] });
    const evil = await push('environments:\n  prod:\n    target: http://attacker.example\n    tokenEnv: DASHCD_WEBHOOK_SECRET\n  dev: {}\n');
    const project = await following.projectConfig(new AbortController().signal);
    expect(project?.refused).toEqual(["environment 'prod': tokenEnv DASHCD_WEBHOOK_SECRET is one of the daemon's own DASHCD_* variables, never a target token"]);

    start();
    const pending = await waitFor(() => state.toJSON().pending, { what: 'the commit pending' });
    expect(pending).toMatchObject({ commit: evil, refused: project?.refused, error: expect.stringContaining("refused, nothing of it is applied: environment 'prod'") });
    expect(state.next()).toBeUndefined();
    expect(passes()).toBe(0);
    expect(state.toJSON().staleReasons.join()).toContain('DASHCD_WEBHOOK_SECRET');
    expect(warnings(lines).find((line) => line.msg === 'revision refused: its dashcd.yaml asks for target tokens the operator has not allowed (--allow-target), or more environments than the daemon starts; nothing of it is applied')).toMatchObject({ revision: evil });

    const allowed = await push('environments:\n  prod:\n    target: https://prod.example.com/\n    tokenEnv: DT_PROD_TOKEN\n');
    await waitFor(() => state.liveCommit() === allowed, { what: 'the allowed commit live' });
    expect(state.toJSON().pending).toBeNull();
    expect((await following.projectConfig(new AbortController().signal))?.refused).toEqual([]);
  });
});

describe('lanes sharing one mirror (one per environment)', { timeout: 30_000 }, () => {
  it('a lane cleaning up keeps the checkout another lane has taken but not yet recorded (its dashcd.yaml is still being read)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-follow-lanes-'));
    started.push({ stop: new AbortController(), dir });
    const remote = await createGitRemote(dir);
    const prodCommit = await remote.commit({ 'dashboards/a.yaml': 'lane: prod\n' }, 'prod');
    await remote.pushTag('release-1');
    const devCommit = await remote.commit({ 'dashboards/a.yaml': 'lane: dev\n' }, 'dev');
    await remote.push();
    const repo: RepoOptions = { url: remote.fileUrl, follow: { branch: 'main' }, path: 'dashboards', fetchMs: 60_000, skipInvalid: false, allowTargets: [] };
    const following = await openRepoFollowing(repo, { cwd: dir, dataDir: '.dashcd', log: captureLog().log });
    const status = new DaemonStatus();
    const dev = await following.attach(status, 'dev', () => undefined);
    const prod = await following.attach(status, 'prod', () => undefined, { tagPattern: 'release-*' });

    // As the two fetch loops interleave: prod has checked its commit out and reads its dashcd.yaml, dev records its
    // own commit and cleans up.
    const prodTree = await prod.source.checkout(await prod.source.fetch());
    const devRevision = await dev.source.fetch();
    const devTree = await dev.source.checkout(devRevision);
    expect(dev.state.fetched({ revision: devRevision, root: devTree })).toBe(true);
    await dev.source.retain([]);
    expect(await readFile(join(prodTree, 'dashboards/a.yaml'), 'utf8')).toBe('lane: prod\n');
    expect(await readFile(join(devTree, 'dashboards/a.yaml'), 'utf8')).toBe('lane: dev\n');

    // Once prod has moved on to another commit, the one it left is no longer needed by anyone.
    await remote.pushTag('release-2');
    const next = await prod.source.fetch();
    expect(next.commit).toBe(devCommit);
    await prod.source.checkout(next);
    await dev.source.retain([]);
    expect(existsSync(prodTree)).toBe(false);
    expect(prodCommit).not.toBe(devCommit);
  });
});

describe('checking a fetched commit', { timeout: 30_000 }, () => {
  it("reads a commit's dashcd.yaml once, not again at every fetch that finds the same commit", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dashcd-follow-checked-'));
    const stop = new AbortController();
    started.push({ stop, dir });
    const remote = await createGitRemote(dir);
    await remote.commit({ 'dashcd.yaml': 'ignore: []\n', 'dashboards/a.yaml': 'x: 1\n' }, 'one');
    await remote.push();
    const { log } = captureLog();
    const source = await openGitSource({ url: remote.fileUrl, follow: { branch: 'main' }, root: join(dir, 'git'), log });
    const state = new SourceStatus({ repo: remote.fileUrl, follow: { branch: 'main' }, path: 'dashboards', env: 'local', skipInvalid: false }, new DaemonStatus().metrics);
    const checkedRoots: string[] = [];
    const follower = followRepository({
      source,
      state,
      fetchMs: 60_000,
      log,
      signal: stop.signal,
      onNewRevision: () => undefined,
      refusals: async (root) => {
        checkedRoots.push(root);
        return [];
      },
    });
    await waitFor(() => state.toJSON().lastFetch?.ok, { what: 'the first fetch' });
    for (let fetches = 2; fetches <= 4; fetches++) {
      const before = state.toJSON().lastFetch?.at;
      follower.fetchNow('test');
      await waitFor(() => state.toJSON().lastFetch?.at !== before, { what: `fetch ${fetches}` });
    }
    expect(checkedRoots).toHaveLength(1);
  });
});
