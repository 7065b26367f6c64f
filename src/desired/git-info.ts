import { execFile } from 'node:child_process';
import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { inheritedEnvironment } from '../lib/git-environment.js';
import { PROJECT_CONFIG_FILES } from '../schema/project-config-files.js';

interface GitWorkTree {
  /** Absent on a detached HEAD (as in most CI checkouts). */
  branch?: string;
  /** Uncommitted changes (including untracked files) under the dashboards folder or in its `dashcd.yaml`. */
  dirty: boolean;
  /** The dashboards folder relative to the work tree root (`dashboards`), for "uncommitted changes in …". */
  dir?: string;
  /**
   * Where the uncommitted changes are, when git could say: the dashboards folder, its `dashcd.yaml` (its values,
   * ignore rules and prune settings shape a plan as much as the files; named as a path from the work tree root), or
   * both. Absent when clean.
   */
  uncommitted?: { readonly folder: boolean; readonly config?: string };
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
  const at = workTreeOf(dir);
  if (at === undefined) return undefined;
  const location = await git(at.cwd, ['rev-parse', '--show-toplevel', '--show-prefix']);
  if (location === undefined) return undefined;
  const [root = '', shownPrefix = ''] = location.split('\n');
  if (!isExpectedRoot(at, root)) return undefined;
  const configs = configPathsOf(at);
  const [head, status] = await Promise.all([
    // Fails on an unborn branch (a repository with no commit yet): in git, but nothing to name.
    git(at.cwd, ['log', '-1', '--no-show-signature', '--format=%H%n%h']),
    // -z: paths as they are (`équipe/` is quoted, escaped, without it), each entry ended by a NUL.
    git(at.cwd, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=normal', '--', at.path, ...configs]),
  ]);
  const [commit, shortCommit] = head?.split('\n') ?? [];
  const folder = (at.root === undefined ? shownPrefix : at.path === '.' ? '' : at.path).replace(/\/$/, '');
  const entries = statusEntries(status ?? '');
  const changed = entries.flatMap((entry) => (entry.path === undefined ? [] : [entry.path]));
  const config = changed.find((path) => configs.includes(path));
  const folderChanged = changed.some((path) => !configs.includes(path));
  return {
    ...(commit && shortCommit ? { commit, shortCommit } : { commit: null, shortCommit: null }),
    ...branchOf(entries),
    // A status that could not be read is reported as dirty: claiming a clean tree we could not check would mislead.
    dirty: status === undefined || changed.length > 0,
    ...(changed.length > 0 ? { uncommitted: { folder: folderChanged, ...(config === undefined ? {} : { config }) } } : {}),
    ...(folder ? { dir: folder } : {}),
    ...(root ? { root } : {}),
  };
}

/** `(detached)` on a detached HEAD, which names none; the branch's name even before its first commit. */
function branchOf(entries: readonly StatusEntry[]): { branch?: string } {
  const branch = entries.find((entry) => entry.header?.startsWith('branch.head '))?.header?.slice('branch.head '.length);
  return branch && branch !== '(detached)' ? { branch } : {};
}

/**
 * The dashboards folder's project config (`dashcd.yaml`, or `dashcd.yml`) as paths from the work tree root, when it
 * lies inside the work tree (a folder at the root has it above, outside git). Not with the operator's GIT_DIR or
 * GIT_WORK_TREE, where git runs from the folder and a path above it may be outside the repository.
 */
function configPathsOf(at: GitPlace): string[] {
  if (at.root === undefined || at.path === '.') return [];
  const parent = dirname(at.path);
  return PROJECT_CONFIG_FILES.map((name) => (parent === '.' ? name : `${parent}/${name}`));
}

type StatusEntry = { header: string; path?: undefined } | { header?: undefined; path: string };

/**
 * The entries of `status --porcelain=v2 -z`: a header (`# branch.head main`), or a changed path: the last field of
 * an ordinary (`1`) or unmerged (`u`) entry, after the eight or ten fields before it, the rest of an untracked (`?`)
 * or ignored (`!`) one; a rename or copy (`2`) is followed by its original path, a changed path too.
 */
function statusEntries(text: string): StatusEntry[] {
  const entries: StatusEntry[] = [];
  const fields = text.split('\0');
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] as string;
    if (field.startsWith('# ')) entries.push({ header: field.slice(2) });
    else if (field.startsWith('? ') || field.startsWith('! ')) entries.push({ path: field.slice(2) });
    else if (field.startsWith('1 ')) entries.push({ path: field.split(' ').slice(8).join(' ') });
    else if (field.startsWith('u ')) entries.push({ path: field.split(' ').slice(10).join(' ') });
    else if (field.startsWith('2 ')) {
      // Both sides changed: a file renamed from the folder to dashcd.yaml changed each.
      entries.push({ path: field.split(' ').slice(9).join(' ') });
      i++;
      if (i < fields.length) entries.push({ path: fields[i] as string });
    }
  }
  return entries;
}

/** The root of the git work tree holding `dir` (an existing folder), or undefined outside one. */
export async function gitWorkTreeRoot(dir: string): Promise<string | undefined> {
  const at = workTreeOf(dir);
  if (at === undefined) return undefined;
  const root = (await git(at.cwd, ['rev-parse', '--show-toplevel']))?.trim();
  return root && isExpectedRoot(at, root) ? root : undefined;
}

/** Where git runs for a folder, the folder as a path from there, and the work tree root its `.git` was found in. */
interface GitPlace {
  cwd: string;
  path: string;
  root?: string;
}

/**
 * Where git runs for `dir`: from the work tree's root, found by its `.git` (git finds that same repository there,
 * its `safe.directory` ownership check included), never from a folder inside it, which is a repository's
 * committers': a committed `HEAD`, `objects/`, `refs/` and `config` made the dashboards folder a repository of its
 * own to git's search, whose `core.fsmonitor` command `git status` ran with every secret of a CI step. The operator's
 * GIT_DIR or GIT_WORK_TREE decide instead, as they do for git: then from `dir` itself. Undefined when no folder
 * from `dir` up holds a `.git`: known without starting git, as most commands ask (about 20 ms a git process).
 */
function workTreeOf(dir: string): GitPlace | undefined {
  if (gitSetByOperator()) return { cwd: dir, path: '.' };
  const root = workTreeAbove(dir);
  if (root === undefined) return undefined;
  return { cwd: root, path: relative(root, realPathOf(dir)).split(sep).join('/') || '.', root };
}

/** Whether the work tree git names is the one its `.git` was found in. */
function isExpectedRoot(at: GitPlace, shown: string): boolean {
  return at.root === undefined || realPathOf(shown) === at.root;
}

/** GIT_DIR or GIT_WORK_TREE in dashcd's environment: the operator's own choice of repository, which git follows. */
function gitSetByOperator(): boolean {
  return process.env.GIT_DIR !== undefined || process.env.GIT_WORK_TREE !== undefined;
}

/**
 * The nearest folder from `dir` up, by its real path as git walks it, that holds a `.git`: a folder with a `HEAD`,
 * or a worktree's or submodule's file (git passes over a `.git` that is neither).
 */
function workTreeAbove(dir: string): string | undefined {
  for (let folder = realPathOf(dir); ; folder = dirname(folder)) {
    const dotGit = join(folder, '.git');
    if (existsSync(join(dotGit, 'HEAD')) || isFile(dotGit)) return folder;
    if (dirname(folder) === folder) return undefined;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
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
  const at = workTreeOf(cwd);
  if (at === undefined || (await gitWorkTreeRoot(cwd)) === undefined || (await git(at.cwd, ['rev-parse', '--verify', '-q', 'HEAD'])) === undefined) return { kind: 'no-history' };
  // `HEAD:./path` is relative to where git runs.
  const text = await git(at.cwd, ['show', `HEAD:./${at.path === '.' ? file : `${at.path}/${file}`}`]);
  return text === undefined ? { kind: 'absent' } : { kind: 'text', text };
}

/**
 * stdout of `git <args>` run in `cwd`, or undefined on any failure (not a repo, no git, non-zero exit). git finds the
 * repository as it always does (its `safe.directory` ownership check included), but a folder is never a bare
 * repository unless named (`safe.bareRepository=explicit`), runs no fsmonitor, and gets none of dashcd's secrets: the
 * folders read are a repository's committers'.
 */
function git(cwd: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', '-c', 'core.fsmonitor=false', '-c', 'safe.bareRepository=explicit', ...args],
      { cwd, env: inheritedEnvironment(process.env), timeout: GIT_TIMEOUT_MS, maxBuffer: GIT_MAX_BUFFER, encoding: 'utf8', windowsHide: true },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}
