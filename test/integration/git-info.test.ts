import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gitWorkTreeRoot, readGitInfo } from '../../src/desired/git-info.js';

const run = promisify(execFile);
// Identity and branch come from -c flags, so the test does not depend on the machine's git configuration.
const IDENTITY = ['-c', 'user.name=dashcd test', '-c', 'user.email=test@example.com', '-c', 'commit.gpgsign=false'];

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await run('git', [...IDENTITY, ...args], { cwd });
  return stdout.trim();
}

let root: string;
let dashboards: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'dashcd-git-info-')));
  dashboards = join(root, 'dashboards');
  await mkdir(dashboards);
  await writeFile(join(dashboards, 'a.yaml'), 'dashboardMetadata: {name: a, owner: o}\ntiles: []\n');
  await writeFile(join(root, 'README.md'), 'hello\n');
  await git(root, '-c', 'init.defaultBranch=main', 'init', '-q');
  await git(root, 'add', '.');
  await git(root, 'commit', '-q', '-m', 'first');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readGitInfo', () => {
  it('names the commit, the branch and the folder of a clean work tree', async () => {
    const head = await git(root, 'rev-parse', 'HEAD');
    const info = await readGitInfo(dashboards);
    expect(info).toEqual({
      commit: head,
      shortCommit: expect.stringMatching(/^[0-9a-f]{7,}$/),
      branch: 'main',
      dirty: false,
      dir: 'dashboards',
      root,
    });
    expect(head.startsWith(info?.shortCommit ?? '-')).toBe(true);
  });

  it('reports an edited or untracked file under the dashboards folder as dirty', async () => {
    await writeFile(join(dashboards, 'a.yaml'), 'dashboardMetadata: {name: b, owner: o}\ntiles: []\n');
    expect((await readGitInfo(dashboards))?.dirty).toBe(true);
    await git(root, 'commit', '-q', '-am', 'second');
    expect((await readGitInfo(dashboards))?.dirty).toBe(false);
    await writeFile(join(dashboards, 'new.yaml'), 'x: 1\n');
    expect((await readGitInfo(dashboards))?.dirty).toBe(true);
  });

  it('counts the folder’s dashcd.yaml, edited, new or renamed, and says where the changes are (a plan said "clean" while its values were uncommitted)', async () => {
    await writeFile(join(root, 'dashcd.yaml'), 'ownershipTag: a\n');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'dashcd.yaml' } });
    await git(root, 'add', 'dashcd.yaml');
    await git(root, 'commit', '-q', '-m', 'config');
    expect((await readGitInfo(dashboards))?.uncommitted).toBeUndefined();
    await writeFile(join(root, 'dashcd.yaml'), 'ownershipTag: b\n');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'dashcd.yaml' } });
    await writeFile(join(dashboards, 'a.yaml'), 'dashboardMetadata: {name: b, owner: o}\ntiles: []\n');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: true, config: 'dashcd.yaml' } });
    await git(root, 'commit', '-q', '-am', 'both');
    // Moved away (staged), then back under its name: both change what the plan reads.
    await git(root, 'mv', 'dashcd.yaml', 'old.yaml');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'dashcd.yaml' } });
    await git(root, 'commit', '-q', '-m', 'moved');
    await git(root, 'mv', 'old.yaml', 'dashcd.yaml');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'dashcd.yaml' } });
    // A folder below the root reads the dashcd.yaml beside it, not the root's.
    await git(root, 'commit', '-q', '-m', 'back');
    await mkdir(join(root, 'ops', 'dashboards'), { recursive: true });
    await writeFile(join(root, 'ops', 'dashboards', 'b.yaml'), 'x: 1\n');
    await writeFile(join(root, 'ops', 'dashcd.yaml'), 'ownershipTag: c\n');
    await git(root, 'add', 'ops/dashboards');
    await git(root, 'commit', '-q', '-m', 'ops');
    expect(await readGitInfo(join(root, 'ops', 'dashboards'))).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'ops/dashcd.yaml' }, dir: 'ops/dashboards' });
    await writeFile(join(root, 'dashcd.yaml'), 'ownershipTag: d\n');
    expect(await readGitInfo(dashboards)).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'dashcd.yaml' } });
  });

  it('counts a dashcd.yml as its config, and names paths git would quote (a folder named équipe) as they are', async () => {
    const team = join(root, 'équipe');
    await mkdir(join(team, 'dashboards'), { recursive: true });
    await writeFile(join(team, 'dashboards', 'a.yaml'), 'x: 1\n');
    await writeFile(join(team, 'dashcd.yml'), 'ownershipTag: a\n');
    await git(root, 'add', '-A');
    await git(root, 'commit', '-q', '-m', 'team');
    await writeFile(join(team, 'dashcd.yml'), 'ownershipTag: b\n');
    // Only the config changed: the folder is not named (git's quoted "\303\251quipe/…" matched no config path).
    expect(await readGitInfo(join(team, 'dashboards'))).toMatchObject({ dirty: true, uncommitted: { folder: false, config: 'équipe/dashcd.yml' }, dir: 'équipe/dashboards' });
    await writeFile(join(team, 'dashboards', 'b.yaml'), 'x: 2\n');
    expect((await readGitInfo(join(team, 'dashboards')))?.uncommitted).toEqual({ folder: true, config: 'équipe/dashcd.yml' });
  });

  it('names both sides of a rename from the dashboards folder to its dashcd.yaml', async () => {
    await git(root, 'mv', 'dashboards/a.yaml', 'dashcd.yaml');
    expect((await readGitInfo(dashboards))?.uncommitted).toEqual({ folder: true, config: 'dashcd.yaml' });
  });

  it('ignores uncommitted changes outside the dashboards folder and its dashcd.yaml', async () => {
    await writeFile(join(root, 'README.md'), 'changed\n');
    expect((await readGitInfo(dashboards))?.dirty).toBe(false);
    expect((await readGitInfo(root))?.dirty).toBe(true);
  });

  it('has no branch on a detached HEAD', async () => {
    await git(root, 'checkout', '-q', '--detach');
    const info = await readGitInfo(dashboards);
    expect(info?.commit).toBe(await git(root, 'rev-parse', 'HEAD'));
    expect(info && 'branch' in info).toBe(false);
  });

  it('is undefined outside a git work tree', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'dashcd-no-git-'));
    try {
      expect(await readGitInfo(plain)).toBeUndefined();
      expect(await readGitInfo(join(plain, 'missing'))).toBeUndefined();
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
  });

  it('reports a repository without commits as a work tree with a null commit, its branch and dirty flag', async () => {
    const fresh = await realpath(await mkdtemp(join(tmpdir(), 'dashcd-unborn-')));
    try {
      await mkdir(join(fresh, 'dashboards'));
      await git(fresh, '-c', 'init.defaultBranch=trunk', 'init', '-q');
      expect(await readGitInfo(join(fresh, 'dashboards'))).toEqual({ commit: null, shortCommit: null, branch: 'trunk', dirty: false, dir: 'dashboards', root: fresh });
      await writeFile(join(fresh, 'dashboards', 'a.yaml'), 'x: 1\n');
      expect(await readGitInfo(join(fresh, 'dashboards'))).toMatchObject({ commit: null, dirty: true });
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('runs three git processes in a work tree and none outside one (a daemon pass forks itself for each)', async () => {
    // A `git` first on PATH that logs its arguments and runs the real one.
    const { stdout: realGit } = await run('sh', ['-c', 'command -v git']);
    const bin = await mkdtemp(join(tmpdir(), 'dashcd-git-count-'));
    const log = join(bin, 'calls');
    await writeFile(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${realGit.trim()}' "$@"\n`);
    await chmod(join(bin, 'git'), 0o755);
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    const calls = async (): Promise<number> => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter((line) => line !== '').length;
    try {
      expect(await readGitInfo(dashboards)).toMatchObject({ branch: 'main', dirty: false });
      expect(await calls()).toBe(3);
      await rm(log, { force: true });
      // Outside any work tree (no .git above it) git is not started at: every command asks, most of them there.
      expect(await readGitInfo(bin)).toBeUndefined();
      expect(await gitWorkTreeRoot(bin)).toBeUndefined();
      expect(await calls()).toBe(0);
      expect(await gitWorkTreeRoot(dashboards)).toBe(root);
      expect(await calls()).toBe(1);
      // A folder of the work tree reached through a symlink from outside it: git finds the tree by the real path.
      await symlink(dashboards, join(bin, 'linked'));
      expect(await readGitInfo(join(bin, 'linked'))).toMatchObject({ branch: 'main', dirty: false });
    } finally {
      process.env.PATH = path;
      await rm(bin, { recursive: true, force: true });
    }
  });
});
