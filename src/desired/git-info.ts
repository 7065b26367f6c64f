import { execFile } from 'node:child_process';

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
 * concurrent commit.
 */
export async function readGitInfo(dir: string): Promise<GitInfo | undefined> {
  const location = await git(dir, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (location === undefined) return undefined;
  const [root = '', prefix = ''] = location.split('\n');
  const [commit, shortCommit, branch, status] = await Promise.all([
    git(dir, ['rev-parse', '--verify', '-q', 'HEAD']),
    git(dir, ['rev-parse', '--short', '--verify', '-q', 'HEAD']),
    git(dir, ['symbolic-ref', '--short', '-q', 'HEAD']),
    git(dir, ['status', '--porcelain', '--untracked-files=normal', '--', '.']),
  ]);
  const folder = prefix.replace(/\/$/, '');
  // `rev-parse --verify HEAD` fails on an unborn branch: a repository with no commit yet.
  const head = commit && shortCommit ? { commit: commit.trim(), shortCommit: shortCommit.trim() } : { commit: null, shortCommit: null };
  return {
    ...head,
    ...(branch?.trim() ? { branch: branch.trim() } : {}),
    // A status that could not be read is reported as dirty: claiming a clean tree we could not check would mislead.
    dirty: status === undefined || status.trim() !== '',
    ...(folder ? { dir: folder } : {}),
    ...(root ? { root } : {}),
  };
}

/** The root of the git work tree holding `dir` (an existing folder), or undefined outside one. */
export async function gitWorkTreeRoot(dir: string): Promise<string | undefined> {
  const root = (await git(dir, ['rev-parse', '--show-toplevel']))?.trim();
  return root ? root : undefined;
}

/** A file's text at HEAD: `no-history` outside a git work tree or before the first commit. */
export type AtHead = { kind: 'text'; text: string } | { kind: 'absent' } | { kind: 'no-history' };

/** `file` (relative to `cwd`) as committed at HEAD. */
export async function readAtHead(cwd: string, file: string): Promise<AtHead> {
  if ((await git(cwd, ['rev-parse', '--verify', '-q', 'HEAD'])) === undefined) return { kind: 'no-history' };
  // `HEAD:./path` is relative to the working directory, whatever the work tree's root.
  const text = await git(cwd, ['show', `HEAD:./${file}`]);
  return text === undefined ? { kind: 'absent' } : { kind: 'text', text };
}

/** stdout of `git <args>` run in `cwd`, or undefined on any failure (not a repo, no git, non-zero exit). */
function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', ...args],
      { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_BUFFER, encoding: 'utf8', windowsHide: true },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
