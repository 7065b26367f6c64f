import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { COMMIT_MAX_WAIT_MS, COMMIT_QUIET_MS, FolderCommit } from '../../../src/daemon/folder-commit.js';
import { readGitInfo, type GitInfo } from '../../../src/desired/git-info.js';
import { createProject } from '../../helpers/cli.js';

const commitNamed = (n: number): GitInfo => ({ commit: String(n).repeat(40).slice(0, 40), shortCommit: String(n), dirty: false });

/** A git stand-in whose reads finish when the test says: numbered in the order they started. */
function slowGit() {
  const pending: ((git: GitInfo) => void)[] = [];
  let started = 0;
  return {
    read: () => new Promise<GitInfo>((resolve) => (started++, pending.push(resolve))),
    started: () => started,
    finishNext: (git: GitInfo) => pending.shift()?.(git),
  };
}

describe('FolderCommit, when reads happen', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] }));
  afterEach(() => vi.useRealTimers());

  it('reads once the passes have been quiet for the quiet time, however many asked', async () => {
    const git = slowGit();
    const commit = new FolderCommit({ dir: '/repo', record: () => undefined, read: git.read });
    for (let i = 0; i < 5; i++) {
      commit.readWhenQuiet();
      await vi.advanceTimersByTimeAsync(COMMIT_QUIET_MS - 1);
    }
    expect(git.started()).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(git.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(COMMIT_MAX_WAIT_MS * 2);
    expect(git.started()).toBe(1);
  });

  it('reads by the longest wait after the first ask while passes keep coming, then waits for quiet again', async () => {
    const git = slowGit();
    const commit = new FolderCommit({ dir: '/repo', record: () => undefined, read: git.read });
    const every = COMMIT_QUIET_MS / 2;
    for (let t = 0; t < COMMIT_MAX_WAIT_MS; t += every) {
      commit.readWhenQuiet();
      await vi.advanceTimersByTimeAsync(every);
    }
    expect(git.started()).toBe(1);
    git.finishNext(commitNamed(1));
    // The read is recorded (a work tree: saves keep asking) before the next pass asks.
    await vi.advanceTimersByTimeAsync(0);
    commit.readWhenQuiet();
    await vi.advanceTimersByTimeAsync(COMMIT_QUIET_MS - 1);
    expect(git.started()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(git.started()).toBe(2);
  });

  it('records reads in the order they were made, one at a time; one asked for during a read runs after it', async () => {
    const git = slowGit();
    const recorded: (GitInfo | undefined)[] = [];
    const commit = new FolderCommit({ dir: '/repo', record: (g) => recorded.push(g), read: git.read });
    commit.readWhenQuiet();
    await vi.advanceTimersByTimeAsync(COMMIT_QUIET_MS);
    const now = commit.readNow();
    expect(git.started()).toBe(1);
    git.finishNext(commitNamed(1));
    await vi.advanceTimersByTimeAsync(0);
    expect(git.started()).toBe(2);
    git.finishNext(commitNamed(2));
    await now;
    expect(recorded).toEqual([commitNamed(1), commitNamed(2)]);
  });

  it('reads now without waiting, and drops a quiet read it overtakes', async () => {
    const git = slowGit();
    const commit = new FolderCommit({ dir: '/repo', record: () => undefined, read: git.read });
    commit.readWhenQuiet();
    const now = commit.readNow();
    expect(git.started()).toBe(1);
    git.finishNext(commitNamed(1));
    await now;
    await vi.advanceTimersByTimeAsync(COMMIT_MAX_WAIT_MS * 2);
    expect(git.started()).toBe(1);
  });

  it('asks git again after saves only while the folder is in a work tree; a read now still asks', async () => {
    const git = slowGit();
    const commit = new FolderCommit({ dir: '/not-a-repo', record: () => undefined, read: () => git.read().then(() => undefined) });
    const outside = commit.readNow();
    git.finishNext(commitNamed(0));
    await outside;
    commit.readWhenQuiet();
    await vi.advanceTimersByTimeAsync(COMMIT_MAX_WAIT_MS * 2);
    expect(git.started()).toBe(1);
    const again = commit.readNow();
    expect(git.started()).toBe(2);
    git.finishNext(commitNamed(0));
    await again;
  });

  it('reads nothing once the daemon stops: neither a pending quiet read nor one asked after', async () => {
    const git = slowGit();
    const stop = new AbortController();
    const commit = new FolderCommit({ dir: '/repo', record: () => undefined, read: git.read, signal: stop.signal });
    commit.readWhenQuiet();
    stop.abort();
    commit.readWhenQuiet();
    await vi.advanceTimersByTimeAsync(COMMIT_MAX_WAIT_MS * 2);
    await commit.readNow();
    expect(git.started()).toBe(0);
  });
});

describe('FolderCommit, with git', () => {
  it('records the commit, branch and uncommitted changes of the folder as git says', async () => {
    const project = await createProject({ 'dashboards/a.yaml': 'dashboardMetadata: {name: A}\n' }, { git: true });
    try {
      const recorded: (GitInfo | undefined)[] = [];
      const commit = new FolderCommit({ dir: join(project.root, 'dashboards'), record: (g) => recorded.push(g) });
      await commit.readNow();
      const head = (await project.git('rev-parse', 'HEAD')).trim();
      expect(recorded).toEqual([await readGitInfo(join(project.root, 'dashboards'))]);
      expect(recorded[0]).toMatchObject({ commit: head, branch: 'main', dirty: false });
      await project.write('dashboards/a.yaml', 'dashboardMetadata: {name: A2}\n');
      await commit.readNow();
      expect(recorded[1]).toMatchObject({ commit: head, dirty: true });
    } finally {
      await project.cleanup();
    }
  });
});
