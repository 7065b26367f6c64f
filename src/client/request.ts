import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { HttpMethod } from './errors.js';
import { transportErrorFrom } from './messages.js';
import { displayUrl } from './redact.js';
import type { TextResponse } from './response.js';
import { createRetryLogger } from './retry-log.js';
import { runWithRetry } from './retry-loop.js';
import type { RetryPolicy } from './retry.js';
import type { Transport } from './transport.js';

export interface RequestTextOptions {
  query?: URLSearchParams;
  /** JSON-encoded; a string is sent as-is (already JSON text). */
  body?: unknown;
  signal?: AbortSignal;
  /** Whether the request may run twice; defaults to every method except POST. */
  idempotent?: boolean;
}

export type RequestText = (method: HttpMethod, path: string, options?: RequestTextOptions) => Promise<TextResponse>;

export interface RequesterConfig {
  /** The environment root; its path is the prefix of every request path. */
  readonly root: URL;
  /** `root` as shown in messages. */
  readonly baseUrl: string;
  readonly token: string;
  readonly transport: Transport;
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  readonly random: () => number;
  readonly log: Logger;
  readonly redact: (text: string) => string;
  readonly signal?: AbortSignal;
}

/**
 * The one request path of the client: headers, body encoding, the retry policy, and the TransportError once it
 * gives up. Any HTTP status comes back as a value; the callers decide which ones they accept.
 */
export function createRequester(config: RequesterConfig): RequestText {
  const prefix = config.root.pathname.replace(/\/+$/, '');
  const logRetry = createRetryLogger(config.log, config.clock);
  const baseHeaders = { authorization: `Api-Token ${config.token}`, accept: 'application/json', 'user-agent': 'dashcd' };
  return async (method, path, options = {}) => {
    const search = options.query?.toString() ?? '';
    const fullPath = `${prefix}${path}${search === '' ? '' : `?${search}`}`;
    const site = { method, url: displayUrl(new URL(fullPath, config.root.origin), config.redact) };
    const body = encodeBody(options.body);
    const headers = body === undefined ? baseHeaders : { ...baseHeaders, 'content-type': 'application/json' };
    const { signal, release } = combineSignals(config.signal, options.signal);
    const { outcome, attempts } = await runWithRetry(
      () => config.transport.send({ method, path: fullPath, headers, body, signal }),
      {
        policy: config.policy,
        clock: config.clock,
        random: config.random,
        signal,
        idempotent: options.idempotent ?? method !== 'POST',
        onRetry: (info) => logRetry(site, info),
      },
    ).finally(release);
    if (outcome.kind === 'transport') {
      const ctx = { ...site, baseUrl: config.baseUrl, attempts, redact: config.redact };
      throw transportErrorFrom(outcome.reason, outcome.cause, ctx);
    }
    return { status: outcome.status, headers: outcome.headers, text: outcome.text, ...site, attempts };
  };
}

function encodeBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

/**
 * One signal that aborts with either, and `release` to call once the request settles. Not AbortSignal.any: on Node 20
 * a signal made by it stays registered with its sources for as long as they live, and the client's own signal lives
 * as long as a daemon, which would keep one entry for every request that also had a signal of its own.
 */
function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): { signal: AbortSignal | undefined; release(): void } {
  if (a === undefined || b === undefined) return { signal: a ?? b, release: () => undefined };
  const combined = new AbortController();
  const abortWith = (source: AbortSignal) => () => combined.abort(source.reason);
  const onA = abortWith(a);
  const onB = abortWith(b);
  if (a.aborted) onA();
  else if (b.aborted) onB();
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  return {
    signal: combined.signal,
    release: () => {
      a.removeEventListener('abort', onA);
      b.removeEventListener('abort', onB);
    },
  };
}
