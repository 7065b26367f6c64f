import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { exhaustionOf, type Exhaustion } from '../../lib/fs-errors.js';
import { HttpError } from './http-error.js';

/** Seconds: a full disk needs someone to free space; descriptors come back as soon as connections close. */
const RETRY_AFTER_SECONDS: Readonly<Record<Exhaustion['resource'], number>> = { 'disk space': 5, 'file descriptors': 1 };

/** One warning per resource per interval: a full disk under load must not write a stack trace per request. */
const LOG_INTERVAL_MS = 60_000;

/**
 * Turns a store failure caused by a full disk or exhausted descriptors into a 503 with `Retry-After` and an envelope
 * naming the resource, and logs it once per interval per resource with how many requests it refused since.
 */
export function exhaustionResponder(log: Logger, clock: Pick<Clock, 'now'>): (error: unknown) => HttpError | undefined {
  const lastLogged = new Map<string, number>();
  const refused = new Map<string, number>();
  return (error) => {
    const exhaustion = exhaustionOf(error);
    if (exhaustion === undefined) return undefined;
    const { resource, code } = exhaustion;
    const retryAfterSeconds = RETRY_AFTER_SECONDS[resource];
    refused.set(resource, (refused.get(resource) ?? 0) + 1);
    const now = clock.now();
    const last = lastLogged.get(resource);
    if (last === undefined || now - last >= LOG_INTERVAL_MS) {
      log.warn({ resource, code, refused: refused.get(resource) }, `out of ${resource} (${code}): answering 503 with Retry-After until it is freed (logged at most once a minute)`);
      lastLogged.set(resource, now);
      refused.set(resource, 0);
    }
    return new HttpError(503, `The server is out of ${resource} (${code}) and could not store this; retry after ${retryAfterSeconds} s.`, undefined, {
      'retry-after': String(retryAfterSeconds),
    });
  };
}
