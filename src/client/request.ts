import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import { attemptError } from './attempt-failure.js';
import type { HttpMethod } from './errors.js';
import type { TargetOrigin } from './messages.js';
import { displayUrl } from './redact.js';
import type { TextResponse } from './response.js';
import { createRetryLogger } from './retry-log.js';
import { runWithRetry } from './retry-loop.js';
import type { RetryPolicy } from './retry.js';
import type { Transport } from './transport.js';
import { withoutTrailingSlashes } from '../lib/trailing-slashes.js';

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
  /** Named in the hints of failures. */
  readonly origin?: TargetOrigin | undefined;
}

/**
 * The one request path of the client: headers, body encoding, the retry policy, and the client's error once it
 * gives up on an attempt without a usable answer (attempt-failure.ts). Any HTTP status comes back as a value; the
 * callers decide which ones they accept.
 */
export function createRequester(config: RequesterConfig): RequestText {
  const prefix = withoutTrailingSlashes(config.root.pathname);
  const logRetry = createRetryLogger(config.log, config.clock);
  const baseHeaders = { authorization: `Api-Token ${config.token}`, accept: 'application/json', 'user-agent': 'dashcd' };
  const signals = requestSignals(config.signal);
  return async (method, path, options = {}) => {
    const search = options.query?.toString() ?? '';
    const fullPath = `${prefix}${path}${search === '' ? '' : `?${search}`}`;
    // Shown only in a retry's log line or an error: made when first asked (two URL parses and a scrub per request were
    // a tenth of a 10,000-GET plan's client time).
    let url: string | undefined;
    const site = {
      method,
      get url(): string {
        return (url ??= displayUrl(new URL(fullPath, config.root.origin), config.redact));
      },
    };
    const body = encodeBody(options.body);
    const headers = body === undefined ? baseHeaders : { ...baseHeaders, 'content-type': 'application/json' };
    const { signal, release } = signals.open(options.signal);
    const { outcome, attempts } = await runWithRetry(
      (_attempt, attemptSignal) => config.transport.send({ method, path: fullPath, headers, body, signal: attemptSignal }),
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
      const ctx = { ...site, baseUrl: config.baseUrl, attempts, redact: config.redact, origin: config.origin };
      throw attemptError(outcome, ctx);
    }
    return {
      status: outcome.status,
      headers: outcome.headers,
      text: outcome.text,
      method,
      get url(): string {
        return site.url;
      },
      attempts,
    };
  };
}

/**
 * Bytes, made once per request: undici turns a string body into a Buffer on every attempt, so a retried request
 * would encode its text again each time (and hold the text and a copy alike).
 */
function encodeBody(body: unknown): Buffer | undefined {
  if (body === undefined) return undefined;
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/**
 * Every request gets a signal of its own, aborted by the client's signal or by the request's. Each source signal has
 * one listener while any request it governs is in flight, not one per request nor one per client: the client's
 * signal (a daemon's, shared by every client of every environment it makes, pass after pass) and a plan's (shared
 * by its concurrent reads) would otherwise collect a listener each and trip Node's leak warning (the sample project's
 * daemon did on the first saved edit: 11 listeners on its stop signal). Not AbortSignal.any: on Node 20 a signal
 * made by it stays registered with its sources for as long as they live.
 */
const watched = new WeakMap<AbortSignal, { controllers: Set<AbortController>; onAbort: () => void }>();

function watch(source: AbortSignal, controller: AbortController): void {
  let entry = watched.get(source);
  if (entry === undefined) {
    const controllers = new Set<AbortController>();
    const onAbort = (): void => {
      for (const c of controllers) c.abort(source.reason);
    };
    source.addEventListener('abort', onAbort, { once: true });
    watched.set(source, (entry = { controllers, onAbort }));
  }
  entry.controllers.add(controller);
}

function unwatch(source: AbortSignal, controller: AbortController): void {
  const entry = watched.get(source);
  if (entry === undefined) return;
  entry.controllers.delete(controller);
  if (entry.controllers.size > 0) return;
  source.removeEventListener('abort', entry.onAbort);
  watched.delete(source);
}

/** The signals of one client's requests: each request's own, watching the client's and the request's (see `watched`). */
export function requestSignals(clientSignal: AbortSignal | undefined): { open(own: AbortSignal | undefined): { signal: AbortSignal; release(): void } } {
  return {
    open(own) {
      const controller = new AbortController();
      const sources = [clientSignal, own].filter((s): s is AbortSignal => s !== undefined);
      const aborted = sources.find((s) => s.aborted);
      if (aborted) controller.abort(aborted.reason);
      for (const source of sources) watch(source, controller);
      return { signal: controller.signal, release: () => sources.forEach((source) => unwatch(source, controller)) };
    },
  };
}
