import type { Clock } from '../lib/clock.js';
import { timeLimited } from './attempt-time.js';
import { attemptBound, decideRetry, type AttemptOutcome, type RetryPolicy } from './retry.js';

export interface RetryInfo {
  /** The attempt that just failed (1-based). */
  readonly attempt: number;
  readonly waitMs: number;
  readonly outcome: AttemptOutcome;
}

export interface RetryLoopDeps {
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  readonly random: () => number;
  readonly idempotent: boolean;
  readonly signal?: AbortSignal;
  readonly onRetry?: (info: RetryInfo) => void;
}

export interface RetryLoopResult<T> {
  /** The last outcome: a success, a non-retryable answer, or the last failure when the policy gave up. */
  readonly outcome: T;
  readonly attempts: number;
}

/**
 * Runs `attempt` until its outcome is final under the policy. Never throws for an HTTP status or a transport
 * failure (those come back as the outcome, so the caller builds one error with the attempt count); only an abort
 * of `signal` rejects, with the signal's reason, during a wait or before an attempt. Each attempt gets a signal of
 * its own that also aborts, with an AttemptTimedOut, at its time limit or at the deadline (attemptBound): the
 * attempt turns that into its outcome.
 */
export async function runWithRetry<T extends AttemptOutcome>(
  attempt: (attemptNumber: number, signal: AbortSignal) => Promise<T>,
  deps: RetryLoopDeps,
): Promise<RetryLoopResult<T>> {
  const startedAtMs = deps.clock.now();
  let last: RetryLoopResult<T> | undefined;
  for (let attempts = 1; ; attempts += 1) {
    deps.signal?.throwIfAborted();
    const bound = attemptBound(deps.policy, startedAtMs, deps.clock.now());
    // decideRetry lets a wait end right at the deadline, which leaves no time for the attempt after it.
    if (last !== undefined && bound.ms <= 0) return last;
    const limit = timeLimited(deps.signal, bound);
    const outcome = await attempt(attempts, limit.signal).finally(limit.clear);
    const decision = decideRetry({
      outcome,
      attempts,
      idempotent: deps.idempotent,
      policy: deps.policy,
      startedAtMs,
      nowMs: deps.clock.now(),
      random: deps.random,
    });
    if (!decision.retry) return { outcome, attempts };
    last = { outcome, attempts };
    deps.onRetry?.({ attempt: attempts, waitMs: decision.waitMs, outcome });
    await deps.clock.sleep(decision.waitMs, deps.signal);
  }
}
