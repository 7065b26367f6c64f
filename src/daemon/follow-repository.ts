import { join } from 'node:path';
import type { Logger } from '../lib/logger.js';
import type { GitSource } from '../source/git-source.js';
import type { SourceStatus } from './source-status.js';
import { errorMessage } from '../lib/error-message.js';
import { BUILT_IN_LIMITS, checkoutLimitRefusals, type RepositoryLimits } from './repository-limits.js';

export interface FollowRepositoryOptions {
  source: GitSource;
  state: SourceStatus;
  fetchMs: number;
  log: Logger;
  signal: AbortSignal;
  /** A new commit is checked out and pending: reconcile it. */
  onNewRevision(): void;
  /** Why the operator's --allow-target list forbids the checkout at `root` (empty: it may be applied). Never throws. */
  refusals?(root: string): Promise<string[]>;
  /**
   * The operator's ownership tag and deletion ceiling (repository-limits.ts): a commit whose dashcd.yaml asks for
   * another tag or more deletions is refused. Default: the built-in ones, so a daemon not told otherwise never lets a
   * commit choose what may be pruned.
   */
  limits?: RepositoryLimits;
  /** Longest wait between failed fetches (default 5 min, or `fetchMs` when that is longer). */
  maxBackoffMs?: number;
}

export interface RepositoryFollower {
  /** Fetch now (a webhook): a fetch already running is followed by one more, so a push during it is not missed. */
  fetchNow(reason: string): void;
  /** Resolves once the loop has stopped after `signal` aborted. */
  readonly stopped: Promise<void>;
}

/**
 * The fetch loop: fetch, check out what the followed ref points at, hand news to the reconcile queue; every
 * `fetchMs`, or at once on `fetchNow`. After a failure the wait doubles (from `fetchMs`, capped), so an unreachable
 * remote is not hammered, and the first success resets it; a webhook still fetches at once. When the very first fetch
 * fails, the last commit the mirror holds from an earlier run is reconciled meanwhile.
 */
export function followRepository(options: FollowRepositoryOptions): RepositoryFollower {
  const { source, state, log, signal } = options;
  const maxBackoffMs = options.maxBackoffMs ?? Math.max(options.fetchMs, 300_000);
  let failures = 0;
  let wake: (() => void) | undefined;
  let again = false;
  let reasons: string[] = ['startup'];
  const limits = options.limits ?? BUILT_IN_LIMITS;

  // A checkout never changes (one folder per commit): its dashcd.yaml is read once, not again on every fetch that
  // finds the same commit (a committer's large file would otherwise be parsed every interval, in every lane).
  let checked: { root: string; refusals: Promise<Refusals> } | undefined;
  const refusalsAt = (root: string): Promise<Refusals> => {
    if (checked?.root !== root) checked = { root, refusals: readRefusals(root) };
    return checked.refusals;
  };
  const readRefusals = async (root: string): Promise<Refusals> => ({
    targets: (await options.refusals?.(root)) ?? [],
    limits: await checkoutLimitRefusals(join(root, state.info.path), root, limits),
  });

  const fetchOnce = async (): Promise<void> => {
    const why = reasons;
    reasons = [];
    try {
      const revision = await source.fetch(signal);
      const root = await source.checkout(revision, signal);
      failures = 0;
      const refused = await refusalsAt(root);
      if (state.fetched({ revision, root, refused: allOf(refused) })) {
        log.info({ revision: revision.commit, ref: revision.ref, subject: revision.subject, author: revision.author, reasons: why }, 'new revision fetched');
        announce(revision.commit, refused);
      }
      await source.retain(state.keptCommits());
    } catch (error) {
      if (signal.aborted) return;
      failures++;
      const message = errorMessage(error);
      state.fetchFailed(message);
      const live = state.liveCommit();
      const outcome = live === undefined ? 'fetch failed; no revision is live yet' : 'fetch failed; the live revision stays';
      log.warn({ err: message, code: (error as { code?: string }).code, failures, retryInMs: delay(), ...(live !== undefined ? { live } : {}) }, outcome);
      if (failures === 1) await recoverLastFetched();
    }
  };

  /** A pass for news that may be applied; a refused commit is only reported (its reasons name no secret). */
  const announce = (commit: string, refused: Refusals): void => {
    if (allOf(refused).length === 0) return options.onNewRevision();
    if (refused.targets.length > 0) log.warn({ revision: commit, refused: refused.targets }, TARGETS_REFUSED);
    if (refused.limits.length > 0) log.warn({ revision: commit, refused: refused.limits }, LIMITS_REFUSED);
  };

  const recoverLastFetched = async (): Promise<void> => {
    const revision = await source.lastFetched(signal).catch(() => undefined);
    if (!revision) return;
    const root = await source.checkout(revision, signal).catch(() => undefined);
    if (!root) return;
    const refused = await refusalsAt(root);
    if (state.recovered({ revision, root, refused: allOf(refused) })) {
      if (allOf(refused).length === 0) log.info({ revision: revision.commit }, 'reconciling the last fetched revision until the remote answers');
      announce(revision.commit, refused);
    }
  };

  const delay = (): number => (failures === 0 ? options.fetchMs : Math.min(maxBackoffMs, options.fetchMs * 2 ** Math.min(failures - 1, 20)));

  const sleep = (ms: number): Promise<void> =>
    new Promise((done) => {
      const finish = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        wake = undefined;
        done();
      };
      const timer = setTimeout(finish, ms);
      signal.addEventListener('abort', finish, { once: true });
      wake = finish;
    });

  const loop = async (): Promise<void> => {
    while (!signal.aborted) {
      await fetchOnce();
      if (signal.aborted) break;
      if (again) again = false;
      else await sleep(delay());
    }
  };

  return {
    fetchNow(reason) {
      reasons.push(reason);
      if (wake) wake();
      else again = true;
    },
    stopped: loop(),
  };
}

/** Why a commit may not be applied, by which of the operator's settings forbids it: each is logged in its own words. */
interface Refusals {
  targets: string[];
  limits: string[];
}

const allOf = (refused: Refusals): string[] => [...refused.targets, ...refused.limits];

const TARGETS_REFUSED = 'revision refused: its dashcd.yaml asks for target tokens the operator has not allowed (--allow-target), or more environments than the daemon starts; nothing of it is applied';
const LIMITS_REFUSED = "revision refused: its dashcd.yaml asks for another ownership tag or more deletions than the operator's (--ownership-tag, --max-delete); nothing of it is applied";
