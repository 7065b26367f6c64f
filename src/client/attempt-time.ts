import type { AttemptBound } from './retry.js';

/**
 * The abort reason of an attempt that ran past its time limit or the request's deadline (attemptBound); its message
 * names the limit, for the caller to say which request it was.
 */
export class AttemptTimedOut extends Error {
  readonly code = 'ATTEMPT_TIMEOUT' as const;

  constructor(readonly bound: AttemptBound) {
    super(`no complete answer within ${shownMs(bound.limitMs)}, ${LIMIT_NAMES[bound.by]}`);
    this.name = 'AttemptTimedOut';
  }
}

const LIMIT_NAMES: Readonly<Record<AttemptBound['by'], string>> = {
  attempt: 'the time limit of one attempt',
  deadline: 'the retry deadline',
};

function shownMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** setTimeout takes at most this; a longer delay fires at once (a deadline of days would end every attempt). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * One attempt's signal: aborted by the request's own signal (with its reason) or, `bound.ms` from now, with an
 * AttemptTimedOut. `clear` ends both as soon as the attempt is over. Not AbortSignal.timeout and AbortSignal.any: a
 * timeout signal's timer cannot be cleared, so every request of a plan would leave one pending for minutes.
 */
export function timeLimited(parent: AbortSignal | undefined, bound: AttemptBound): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const follow = (): void => controller.abort(parent?.reason);
  if (parent?.aborted) follow();
  else parent?.addEventListener('abort', follow, { once: true });
  const timer = setTimeout(() => controller.abort(new AttemptTimedOut(bound)), Math.min(bound.ms, MAX_TIMER_MS));
  return {
    signal: controller.signal,
    clear: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', follow);
    },
  };
}
