import { execFile } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { inheritedEnvironment } from '../lib/git-environment.js';

interface GitWorkTree {
  /** Absent on a detached HEAD (as in most CI checkouts). */
  branch?: string;
  /** Uncommitted changes (including untracked files) under the dashboards folder. */
  dirty: boolean;
  /** The dashboards folder relative to the work tree root (`dashboards`), for "uncommitted changes in …". */
  dir?: string;
  /** The work tree root: where `dashcd.yaml` lives. */
  root?: string;
}

/**
 * Which commit a plan or apply reconciles: named in every output format, so logs and PR comments tell what is live.
 * `commit: null` is a work tree whose branch has no commit yet (right after `git init`): in git, but nothing to name.
 */
export type GitInfo = (GitWorkTree & { commit: string; shortCommit: string }) | (GitWorkTree & { commit: null; shortCommit: null });

const GIT_TIMEOUT_MS = 10_000;
// `status` lists every untracked file; a large folder must not fail the read.
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * Reads the commit, branch and dirty flag for the folder `dir`. Undefined when `dir` is not in a git work tree or git
 * is not installed: git information is a courtesy, never a reason to fail.
 * git runs with execFile (no shell) and `--no-optional-locks`, so reading never contends for `index.lock` with a
 * concurrent commit. Three processes in a work tree, none outside one (no `.git` above), each forked from the whole calling process
 * (about 8-15 ms of the daemon's thread each with 1,000 dashboards held): the daemon reads this after its passes,
 * never between a save and its write (daemon/folder-commit.ts).
 */
export async function readGitInfo(dir: string): Promise<GitInfo | undefined> {
  if (!mayBeInWorkTree(dir)) return undefined;
  const location = await git(dir, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (location === undefined) return undefined;
  const [root = '', prefix = ''] = location.split('\n');
  const [head, status] = await Promise.all([
    // Fails on an unborn branch (a repository with no commit yet): in git, but nothing to name.
    git(dir, ['log', '-1', '--no-show-signature', '--format=%H%n%h']),
    git(dir, ['status', '--porcelain=v2', '--branch', '--untracked-files=normal', '--', '.']),
  ]);
  const [commit, shortCommit] = head?.split('\n') ?? [];
  const folder = prefix.replace(/\/$/, '');
  const lines = status?.split('\n') ?? [];
  // `(detached)` on a detached HEAD; the branch's name even before its first commit.
  const branch = lines.find((line) => line.startsWith('# branch.head '))?.slice('# branch.head '.length);
  return {
    ...(commit && shortCommit ? { commit, shortCommit } : { commit: null, shortCommit: null }),
    ...(branch && branch !== '(detached)' ? { branch } : {}),
    // A status that could not be read is reported as dirty: claiming a clean tree we could not check would mislead.
    dirty: status === undefined || lines.some((line) => line !== '' && !line.startsWith('#')),
    ...(folder ? { dir: folder } : {}),
    ...(root ? { root } : {}),
  };
}

/** The root of the git work tree holding `dir` (an existing folder), or undefined outside one. */
export async function gitWorkTreeRoot(dir: string): Promise<string | undefined> {
  if (!mayBeInWorkTree(dir)) return undefined;
  const root = (await git(dir, ['rev-parse', '--show-toplevel']))?.trim();
  return root ? root : undefined;
}

/**
 * False when no folder from `dir` up holds a `.git` (a folder, or a worktree's file) and git is not pointed elsewhere
 * by GIT_DIR or GIT_WORK_TREE: then `dir` is in no work tree, known without starting git. Most commands ask (the
 * project root, its data dir); outside a repository a git process cost each about 20 ms.
 */
function mayBeInWorkTree(dir: string): boolean {
  return gitSetByOperator() || workTreeAbove(dir) !== undefined;
}

/** GIT_DIR or GIT_WORK_TREE in dashcd's environment: the operator's own choice of repository, which git follows. */
function gitSetByOperator(): boolean {
  return process.env.GIT_DIR !== undefined || process.env.GIT_WORK_TREE !== undefined;
}

/**
 * The nearest folder from `dir` up that holds a `.git` (a folder, or a worktree's file): the work tree git itself
 * would find, by the real path first (git walks it; a folder reached through a symlink has other parents there).
 */
function workTreeAbove(dir: string): string | undefined {
  return gitAbove(realPathOf(dir)) ?? gitAbove(resolve(dir));
}

function gitAbove(start: string): string | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    if (existsSync(join(folder, '.git'))) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

/** The real path of `dir`, or of its nearest ancestor that exists (a dashboards folder not made yet), with the rest. */
function realPathOf(dir: string): string {
  const absolute = resolve(dir);
  for (let folder = absolute; ; folder = dirname(folder)) {
    try {
      return join(realpathSync(folder), relative(folder, absolute));
    } catch {
      if (dirname(folder) === folder) return absolute;
    }
  }
}

/** A file's text at HEAD: `no-history` outside a git work tree or before the first commit. */
export type AtHead = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'no-history' };

/** `file` (relative to `cwd`) as committed at HEAD. */
export async function readAtHead(cwd: string, file: string): Promise<AtHead> {
  if (!mayBeInWorkTree(cwd) || (await git(cwd, ['rev-parse', '--verify', '-q', 'HEAD'])) === undefined) return { kind: 'no-history' };
  // `HEAD:./path` is relative to the working directory, whatever the work tree's root.
  const text = await git(cwd, ['show', `HEAD:./${file}`]);
  return text === undefined ? { kind: 'absent' } : { kind: 'text', text };
}

/**
 * stdout of `git <args>` run in `cwd`, or undefined on any failure (not a repo, no git, non-zero exit). The folders
 * read are a repository's committers': git is told which repository to read (the `.git` found above), never left to
 * search from there, where a committed `HEAD`, `objects/`, `refs/` and `config` make a folder a repository of its own
 * whose `core.fsmonitor` command `git status` runs; it gets none of dashcd's secrets either, and runs no fsmonitor.
 */
function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  const root = gitSetByOperator() ? undefined : workTreeAbove(cwd);
  const repository = root === undefined ? [] : ['--git-dir', join(root, '.git'), '--work-tree', root];
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', '-c', 'core.fsmonitor=false', ...repository, ...args],
      { cwd, env: inheritedEnvironment(process.env), timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_BUFFER, encoding: 'utf8', windowsHide: true },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
