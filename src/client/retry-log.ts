import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { HttpMethod } from './errors.js';
import type { RetryInfo } from './retry-loop.js';

/** The shortest quiet period after a retry warning; a backoff longer than this extends it. */
const MIN_WINDOW_MS = 5_000;

export type RetryLogger = (site: { method: HttpMethod; url: string }, info: RetryInfo) => void;

/**
 * Logs retries for one client (one command): when the target is down every request in flight retries, so only the
 * first failing retry of each backoff window is a warning (with how many were quiet since the last one); the rest
 * go to debug. Rate limiting is flow control, so a 429 retry is always debug.
 */
export function createRetryLogger(log: Logger, clock: Clock): RetryLogger {
  let quietUntil = 0;
  let quieted = 0;
  return (site, { outcome, attempt, waitMs }) => {
    const fields = {
      method: site.method,
      url: site.url,
      ...(outcome.kind === 'response' ? { status: outcome.status } : { reason: outcome.reason }),
      attempt,
      waitMs,
    };
    const now = clock.now();
    if ((outcome.kind === 'response' && outcome.status === 429) || now < quietUntil) {
      if (!(outcome.kind === 'response' && outcome.status === 429)) quieted++;
      log.debug(fields, 'retrying request');
      return;
    }
    log.warn(quieted > 0 ? { ...fields, retriesSinceLastWarning: quieted } : fields, 'retrying request');
    quieted = 0;
    quietUntil = now + Math.max(MIN_WINDOW_MS, waitMs);
  };
}
