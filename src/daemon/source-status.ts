import { join } from 'node:path';
import type { GitInfo } from '../desired/git-info.js';
import type { MetricsScope } from '../lib/metrics.js';
import { describeFollow, type Follow } from '../source/follow.js';
import type { Revision } from '../source/revision.js';
import type { PassOutcome, PassSource, PassTree } from './pass-source.js';
import type { SourceStatusJson } from './status-schema.js';

export interface SourceInfo {
  repo: string;
  follow: Follow;
  /** The dashboards folder inside the repository. */
  path: string;
  /** The metrics' `env` label. */
  env: string;
  /** Apply the valid files of a commit with invalid ones (else such a commit is not applied at all). */
  skipInvalid: boolean;
}

interface Checkout {
  revision: Revision;
  /** The clean checkout's folder. */
  root: string;
  /** Why the operator's settings forbid this commit (target-allow-list.ts, repository-limits.ts); never applied when any. */
  refused?: readonly string[];
}

type Pending = Checkout & { fetchedAt: string; error?: string; invalid?: string[] };

/**
 * Which commit is live, which was fetched but is not (yet), and how fetching goes: the git half of the daemon's
 * state, read by `/status`, `/healthz` and `/metrics`, and the reconcile pass's source of what to read.
 *
 * A fetched commit stays pending until a pass applied it; an invalid one stays pending with its diagnostics and is
 * not tried again until a newer commit arrives, while passes (drift checks) keep reading the live one. A refused one
 * (it asks for target tokens, an ownership tag or deletions the operator did not allow) stays pending the same way,
 * and no pass ever reads it.
 */
export class SourceStatus implements PassSource {
  private live: (Checkout & { fetchedAt: string; appliedAt: string }) | undefined;
  private pending: Pending | undefined;
  private lastFetch: { at: string; ok: boolean; error?: string } | undefined;
  private lastSuccessfulFetchAt: string | undefined;
  private readonly setRevisionInfo;
  private readonly setLastFetch;
  private readonly countFetchFailure;

  constructor(
    readonly info: SourceInfo,
    private readonly metrics: MetricsScope,
    private readonly now: () => number = Date.now,
  ) {
    this.setRevisionInfo = metrics.gauge('dashcd_sync_revision_info', 'The commit live per environment (value 1; the revision label is the full sha)');
    this.setLastFetch = metrics.gauge('dashcd_last_fetch_timestamp_seconds', 'When the repository was last fetched successfully');
    this.countFetchFailure = metrics.counter('dashcd_fetch_failures_total', 'Fetches of the repository that failed');
    this.countFetchFailure({ env: info.env }, 0);
  }

  /** A fetch succeeded and `checkout` holds what it resolved to; true when that is news (a pass should run). */
  fetched(checkout: Checkout): boolean {
    const at = this.iso();
    this.lastFetch = { at, ok: true };
    this.lastSuccessfulFetchAt = at;
    this.setLastFetch(this.now() / 1000, { env: this.info.env });
    return this.offer(checkout, at);
  }

  /** After a restart during an outage: the last commit the mirror holds, offered without counting as a fetch. */
  recovered(checkout: Checkout): boolean {
    return this.offer(checkout, this.iso());
  }

  fetchFailed(error: string): void {
    this.lastFetch = { at: this.iso(), ok: false, error };
    this.countFetchFailure({ env: this.info.env });
  }

  /** The live commit, if any pass applied one. */
  liveCommit(): string | undefined {
    return this.live?.revision.commit;
  }

  /** Commits whose checkouts are still needed. */
  keptCommits(): string[] {
    return [this.live?.revision.commit, this.pending?.revision.commit].filter((c): c is string => c !== undefined);
  }

  next(): PassTree | undefined {
    const checkout = this.pending && this.pending.invalid === undefined && this.pending.refused === undefined ? this.pending : this.live;
    if (!checkout) return undefined;
    const { revision, root } = checkout;
    const git: GitInfo = {
      commit: revision.commit,
      shortCommit: revision.shortCommit,
      dirty: false,
      dir: this.info.path,
      ...('branch' in this.info.follow ? { branch: this.info.follow.branch } : {}),
    };
    return { cwd: root, dir: join(root, this.info.path), git, revision: revision.commit, tolerateInvalid: this.info.skipInvalid };
  }

  settled(tree: PassTree, outcome: PassOutcome): void {
    const pending = this.pending?.revision.commit === tree.revision ? this.pending : undefined;
    if (!pending) return;
    if (outcome.kind === 'applied') {
      this.live = { revision: pending.revision, root: pending.root, fetchedAt: pending.fetchedAt, appliedAt: this.iso() };
      this.pending = undefined;
      this.metrics.remove('dashcd_sync_revision_info', { env: this.info.env });
      this.setRevisionInfo(1, { env: this.info.env, revision: pending.revision.commit });
    } else if (outcome.kind === 'invalid') {
      this.pending = { ...pending, invalid: outcome.errors, error: `commit ${pending.revision.shortCommit} has invalid files; nothing of it was applied` };
    } else {
      this.pending = { ...pending, error: outcome.error };
    }
  }

  /** Why what is live is not what the remote has, or may not be; empty when in sync. */
  staleReasons(): string[] {
    const reasons: string[] = [];
    if (this.lastFetch && !this.lastFetch.ok) reasons.push(`fetch failed: ${this.lastFetch.error ?? ''}`);
    if (!this.lastFetch) reasons.push('not fetched yet');
    if (this.pending) reasons.push(`commit ${this.pending.revision.shortCommit} fetched but not applied${this.pending.error ? `: ${this.pending.error}` : ''}`);
    return reasons;
  }

  toJSON(): SourceStatusJson {
    const stale = this.staleReasons();
    return {
      env: this.info.env,
      repo: this.info.repo,
      follow: describeFollow(this.info.follow),
      path: this.info.path,
      live: this.live ? { ...this.live.revision, fetchedAt: this.live.fetchedAt, appliedAt: this.live.appliedAt } : null,
      pending: this.pending
        ? { ...this.pending.revision, fetchedAt: this.pending.fetchedAt, error: this.pending.error ?? null, invalid: this.pending.invalid ?? [], refused: [...(this.pending.refused ?? [])] }
        : null,
      lastFetch: this.lastFetch ?? null,
      lastSuccessfulFetchAt: this.lastSuccessfulFetchAt ?? null,
      stale: stale.length > 0,
      staleReasons: stale,
    };
  }

  private offer(checkout: Checkout, at: string): boolean {
    const commit = checkout.revision.commit;
    if (this.pending?.revision.commit === commit) return false;
    if (this.live?.revision.commit === commit) {
      // Back to the live commit (a force-push undoing a bad one): nothing is pending any more, and a pass makes sure
      // no write of a half-applied pending commit stays.
      const hadPending = this.pending !== undefined;
      this.pending = undefined;
      return hadPending;
    }
    const { refused = [], ...rest } = checkout;
    this.pending = {
      ...rest,
      fetchedAt: at,
      ...(refused.length > 0 ? { refused, error: `refused, nothing of it is applied: ${refused.join('; ')}` } : {}),
    };
    return true;
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
