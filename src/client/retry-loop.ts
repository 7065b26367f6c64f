import type { Clock } from '../lib/clock.js';
import { decideRetry, type AttemptOutcome, type RetryPolicy } from './retry.js';

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
 * of `signal` rejects, with the signal's reason, during a wait or before an attempt.
 */
export async function runWithRetry<T extends AttemptOutcome>(
  attempt: (attemptNumber: number) => Promise<T>,
  deps: RetryLoopDeps,
): Promise<RetryLoopResult<T>> {
  const startedAtMs = deps.clock.now();
  for (let attempts = 1; ; attempts += 1) {
    deps.signal?.throwIfAborted();
    const outcome = await attempt(attempts);
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
    deps.onRetry?.({ attempt: attempts, waitMs: decision.waitMs, outcome });
    await deps.clock.sleep(decision.waitMs, deps.signal);
  }
}
