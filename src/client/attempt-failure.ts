import { AttemptTimedOut } from './attempt-time.js';
import { BodyOverLimit } from './bounded-body.js';
import { TransportError, type ClientError } from './errors.js';
import { transportErrorFrom, transportReason, type FailureContext } from './messages.js';
import { unexpectedResponse } from './response.js';

/** An attempt that gave no answer to use: none at all, or one past a limit of the client's own. */
export interface FailedAttempt {
  readonly kind: 'transport';
  readonly reason: string;
  readonly cause: unknown;
}

/**
 * A failed attempt as a value, so the retry policy can classify it. Only an abort of the request's own signal (the
 * caller gave up) throws; an attempt ended by its time limit fails like a timeout.
 */
export function failedAttempt(error: unknown, signal: AbortSignal | undefined): FailedAttempt {
  const timedOut = signal?.reason instanceof AttemptTimedOut ? signal.reason : undefined;
  if (signal?.aborted && timedOut === undefined) throw signal.reason;
  const cause = timedOut ?? error;
  return { kind: 'transport', reason: transportReason(cause), cause };
}

/**
 * The client's error once the retry policy gives up on a failed attempt: a body past its limit is a bad answer
 * (UnexpectedResponseError), an attempt past a time limit a TransportError naming the limit, anything else as
 * messages.ts words it.
 */
export function attemptError(failure: FailedAttempt, ctx: FailureContext): ClientError {
  const { cause } = failure;
  const site = { method: ctx.method, url: ctx.url, attempts: ctx.attempts };
  if (cause instanceof BodyOverLimit) return unexpectedResponse({ ...site, status: cause.status, headers: {}, text: '' }, [cause.message]);
  if (cause instanceof AttemptTimedOut) return new TransportError(timeoutMessage(cause, ctx), { ...site, reason: failure.reason, cause });
  return transportErrorFrom(failure.reason, cause, ctx);
}

function timeoutMessage(timedOut: AttemptTimedOut, ctx: FailureContext): string {
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : '';
  const raise = timedOut.bound.by === 'deadline' ? ' or raise DASHCD_RETRY_DEADLINE' : '';
  return `${ctx.method} ${ctx.url}: ${timedOut.message}${tries} — the target is too slow; retry later${raise}`;
}
