import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../lib/logger.js';
import { TEMP_MARKER } from '../lib/durable-file.js';
import { describeFollow, fetchRefspec, mirrorRef, remoteRefName, type Follow } from './follow.js';
import { checkRepositoryUrl, credentialSecrets, gitEnvironment, type GitCredentials } from './git-credentials.js';
import { parseRevision, REVISION_FORMAT, type Revision } from './revision.js';
import { inheritedEnvironment } from '../lib/git-environment.js';
import { runGit } from './run-git.js';
import { catFileBlobs, writeCheckout } from './tree-checkout.js';
import { checkoutRefusal, readTreeListing, type CheckoutLimits, type TreeFile } from './tree-listing.js';
import { SourceError } from './source-error.js';
import { errorMessage } from '../lib/error-message.js';
import { MAX_SOURCE_BYTES } from '../schema/limits.js';
import { makeDirs } from '../lib/make-dirs.js';
import { pathExists } from '../lib/path-exists.js';

export interface GitSourceOptions {
  url: string;
  follow: Follow;
  /** Parent folder of every followed repository's mirror (`<data dir>/git`). */
  root: string;
  credentials?: GitCredentials;
  log: Logger;
  timeoutMs?: number;
  /** What a checkout holds: the dashboards folder and the dashcd.yaml beside it (default: the whole commit). */
  paths?: readonly string[];
}

/**
 * How much of the disk one checkout may take: ten times the files of 10,000 dashboards, and more than twice their
 * bytes at 20 KB each. A commit of 200 files of 10 MB, 200 kB as git objects, was checked out as 2 GB.
 */
export const CHECKOUT_LIMITS: CheckoutLimits = { maxFiles: 100_000, maxBytes: 512 * 1024 * 1024, largestWritten: MAX_SOURCE_BYTES };

export interface GitSource {
  readonly url: string;
  readonly follow: Follow;
  /** Where the mirror and the checkouts of this repository live. */
  readonly dir: string;
  /** Fetches the followed ref and resolves it to a commit. Throws SourceError; the mirror keeps what it had. */
  fetch(signal?: AbortSignal): Promise<Revision>;
  /** What the last successful fetch resolved to, without asking the remote (after a restart while it is down). */
  lastFetched(signal?: AbortSignal): Promise<Revision | undefined>;
  /** A clean checkout of exactly `revision` (no `.git`, nobody writes to it), reused when it exists. */
  checkout(revision: Revision, signal?: AbortSignal): Promise<string>;
  /** Removes the checkouts of every other commit; one still being written (by another follower of the mirror) stays. */
  retain(commits: readonly string[]): Promise<void>;
}

/**
 * Opens (creating if needed) the bare mirror of `url` under `root`. The mirror has no remote configured: every fetch
 * names the URL and the refspec, so neither the URL's context nor a credential is ever written to its config.
 */
export async function openGitSource(options: GitSourceOptions): Promise<GitSource> {
  const { url, follow, credentials, log } = options;
  checkRepositoryUrl(url);
  const dir = join(options.root, mirrorName(url));
  const repo = join(dir, 'repo.git');
  const checkouts = join(dir, 'checkouts');
  const secrets = credentialSecrets(credentials);
  const git = (args: readonly string[], signal?: AbortSignal, env: Record<string, string> = {}): Promise<string> =>
    runGit(['--git-dir', repo, ...args], { cwd: dir, env: { ...gitEnvironment(url, credentials), ...env }, secrets, ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}), ...(signal ? { signal } : {}) });

  await initMirror(dir, repo);
  await sweepTemps(checkouts);

  const resolveRef = async (signal?: AbortSignal): Promise<Revision | undefined> => {
    const ref = 'branch' in follow ? mirrorRef(follow) : await newestTag(signal);
    if (ref === undefined) return undefined;
    const commit = (await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], signal).catch(() => '')).trim();
    if (commit === '') return undefined;
    return parseRevision(await git(['log', '-1', '--no-show-signature', `--format=${REVISION_FORMAT}`, commit, '--'], signal), remoteRefName(ref));
  };

  /**
   * A followed branch the remote does not have: the remote's default branch, when it is another, is the likely one
   * (`git init` still makes `master` on many machines, and --branch defaults to main).
   */
  const withDefaultBranch = async (error: unknown, signal?: AbortSignal): Promise<unknown> => {
    if (!(error instanceof SourceError) || error.code !== 'ref-not-found' || !('branch' in follow)) return error;
    const head = await git(['ls-remote', '--symref', '--', url, 'HEAD'], signal).catch(() => '');
    const branch = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(head)?.[1];
    const hint = branch === undefined || branch === follow.branch ? '' : ` (its default branch is ${branch}: follow it with --branch ${branch})`;
    return new SourceError('ref-not-found', `no branch ${follow.branch} in ${url}${hint}`, { cause: error });
  };

  /** The files a checkout of `commit` writes, once they are known to fit (tree-listing.ts). */
  const listFiles = async (commit: string, signal?: AbortSignal): Promise<TreeFile[]> => {
    const refused = (why: string): SourceError => new SourceError('commit-refused', `commit ${commit.slice(0, 12)} cannot be checked out: ${why}`);
    const output = await git(['--literal-pathspecs', 'ls-tree', '-r', '-z', '-l', commit, '--', ...(options.paths ?? [])], signal).catch((error: unknown) => {
      // More names than git's output buffer holds: far more files than a checkout takes.
      if (error instanceof SourceError && error.code === 'output-too-large') throw refused(`its dashboards folder lists more files than the ${CHECKOUT_LIMITS.maxFiles.toLocaleString('en-US')} a checkout takes`);
      throw error;
    });
    const listing = readTreeListing(output);
    if ('refused' in listing) throw refused(listing.refused);
    const refusal = checkoutRefusal(listing.files, CHECKOUT_LIMITS);
    if (refusal !== undefined) throw refused(refusal);
    return listing.files;
  };

  /** `git cat-file --batch` reads its ids from stdin: spawned, with runGit's environment. */
  const spawnGit = (args: readonly string[], signal?: AbortSignal) =>
    spawn('git', ['--git-dir', repo, ...args], { cwd: dir, env: { ...inheritedEnvironment(process.env), ...gitEnvironment(url, credentials) }, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true, ...(signal ? { signal } : {}) });

  const newestTag = async (signal?: AbortSignal): Promise<string | undefined> => {
    const refs = await git(['for-each-ref', '--sort=-v:refname', '--count=1', '--format=%(refname)', mirrorRef(follow)], signal);
    return refs.trim() || undefined;
  };

  return {
    url,
    follow,
    dir,
    async fetch(signal) {
      const prune = 'branch' in follow ? [] : ['--prune'];
      await oneFetchAtATime(repo, () => git(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--no-recurse-submodules', ...prune, '--', url, fetchRefspec(follow)], signal)).catch(async (error: unknown) => {
        throw await withDefaultBranch(error, signal);
      });
      const revision = await resolveRef(signal);
      if (!revision) throw new SourceError('ref-not-found', `no tag matches '${'tagPattern' in follow ? follow.tagPattern : ''}' in ${url}`);
      log.debug({ follow: describeFollow(follow), revision: revision.commit }, 'fetched');
      return revision;
    },
    lastFetched: (signal) => resolveRef(signal),
    async checkout(revision, signal) {
      const target = join(checkouts, revision.commit);
      if (await pathExists(target)) return target;
      await makeDirs(checkouts);
      const temp = join(checkouts, `${TEMP_MARKER}${revision.commit}-${randomBytes(4).toString('hex')}`);
      try {
        await mkdir(temp);
        const files = await listFiles(revision.commit, signal);
        await writeCheckout(temp, files, catFileBlobs((args) => spawnGit(args, signal)), CHECKOUT_LIMITS.largestWritten).catch((error: unknown) => {
          // What the file system or git refused while writing (a name a file system takes differently, a full disk):
          // this commit's failure, reported by the fetch loop, never an exception that stops the daemon.
          if (signal?.aborted) throw new SourceError('aborted', 'the checkout was cancelled');
          throw new SourceError('git-failed', `commit ${revision.commit.slice(0, 12)} could not be written out: ${errorMessage(error)}`, { cause: error });
        });
        await rename(temp, target).catch(async (error: unknown) => {
          // Another follower of this mirror (an environment on the same commit) finished the same checkout first.
          if (!(await pathExists(target))) throw error;
        });
      } finally {
        await rm(temp, { recursive: true, force: true });
      }
      return target;
    },
    async retain(commits) {
      const keep = new Set(commits);
      const names = await readdir(checkouts).catch(() => [] as string[]);
      // A temp folder is a checkout another follower is writing now. Removed under it, the checkout failed, or was
      // renamed into place without the files removed (a daemon read a commit without its dashcd.yaml, and reused that
      // checkout for good). Temps a crash left are swept at open.
      const finished = names.filter((name) => !name.startsWith(TEMP_MARKER) && !keep.has(name));
      await Promise.all(finished.map((name) => rm(join(checkouts, name), { recursive: true, force: true })));
    },
  };
}

/** The fetch last queued for each mirror (its git dir): the next one starts after it. */
const queuedFetches = new Map<string, Promise<unknown>>();

/**
 * Runs `fetch` once every fetch queued before it into the same mirror has ended. Environments following one branch
 * fetch it together after each push, and two fetches that move one ref at once fail for one of them ("cannot lock
 * ref … is at X but expected Y"): a false failure counted and logged on every commit. Not shared: a fetch already
 * running may have asked the remote before the push a waiting one was started for.
 */
function oneFetchAtATime<T>(mirror: string, fetch: () => Promise<T>): Promise<T> {
  const run = (queuedFetches.get(mirror) ?? Promise.resolve()).then(fetch);
  const ended = run.catch(() => undefined);
  queuedFetches.set(mirror, ended);
  void ended.then(() => {
    if (queuedFetches.get(mirror) === ended) queuedFetches.delete(mirror);
  });
  return run;
}

/**
 * `host-path-<hash>`: readable in `ls`, unique per URL. The hash covers the whole URL, so two URLs that slug alike
 * never share a mirror.
 */
export function mirrorName(url: string): string {
  const slug = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '').replace(/\.git$/, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(-60);
  return `${slug || 'repo'}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
}

/** A bare repository made in a temp folder and renamed into place: a crash never leaves a half-made mirror. */
async function initMirror(dir: string, repo: string): Promise<void> {
  if (await pathExists(join(repo, 'HEAD'))) return;
  await makeDirs(dir);
  const temp = `${repo}${TEMP_MARKER}${randomBytes(4).toString('hex')}`;
  try {
    await runGit(['init', '--quiet', '--bare', temp], { cwd: dir });
    await rename(temp, repo);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** Checkouts cut short by a crash: never used (only a renamed folder is complete), removed at open. */
async function sweepTemps(checkouts: string): Promise<void> {
  const names = await readdir(checkouts).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.startsWith(TEMP_MARKER)).map((name) => rm(join(checkouts, name), { recursive: true, force: true })));
}

