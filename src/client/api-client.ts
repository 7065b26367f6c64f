import { systemClock, type Clock } from '../lib/clock.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { createDashboardsApi, type DashboardsApi } from './dashboards-api.js';
import type { ApiError, HttpMethod } from './errors.js';
import { apiErrorFrom, transportErrorFrom, type FailureContext } from './messages.js';
import { createRedactor, displayUrl } from './redact.js';
import { unexpectedResponse, type TextResponse } from './response.js';
import { runWithRetry, type RetryInfo } from './retry-loop.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { createTransport } from './transport.js';

export type { ValidationOutcome, DashboardsApi } from './dashboards-api.js';
export type { TextResponse } from './response.js';

export interface ApiClientOptions {
  /** Environment root, e.g. http://127.0.0.1:8080/e/local or https://abc123.live.dynatrace.com. */
  baseUrl: string;
  token: string;
  log?: Logger;
  clock?: Clock;
  retry?: Partial<RetryPolicy>;
  /** Upper bound of open connections to the target (default 16). */
  connections?: number;
  /** Per attempt: the wait for response headers and any stall while the body streams (default 30 s). */
  requestTimeoutMs?: number;
  /** Aborts every request and retry wait of this client. */
  signal?: AbortSignal;
  /** Jitter source, injectable for tests (default Math.random). */
  random?: () => number;
}

export interface RequestTextOptions {
  query?: URLSearchParams;
  /** JSON-encoded; a string is sent as-is (already JSON text). */
  body?: unknown;
  signal?: AbortSignal;
  /** Whether the request may run twice; defaults to every method except POST. */
  idempotent?: boolean;
}

export interface ApiClient {
  /** The normalised environment root, redacted for display (no userinfo, no token). */
  readonly baseUrl: string;
  dashboards: DashboardsApi;
  events: {
    /** Raw JSON text of one EventQueryResult page: eventIds exceed JS safe integers, callers must not JSON.parse it blindly. */
    fetchPageText(query: URLSearchParams): Promise<string>;
  };
  /** Any call below the environment root; returns the final answer whatever its status (retries applied). */
  requestText(method: HttpMethod, path: string, options?: RequestTextOptions): Promise<TextResponse>;
  /** The one-line ApiError for an answer an operation does not accept. */
  fail(response: TextResponse): ApiError;
  close(): Promise<void>;
}

const EVENTS = '/api/v1/events';

export function createApiClient(options: ApiClientOptions): ApiClient {
  const { token, log = silentLogger(), clock = systemClock, random = Math.random } = options;
  const root = parseBaseUrl(options.baseUrl);
  const redact = createRedactor(token);
  const baseUrl = displayUrl(root, redact);
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const transport = createTransport({
    origin: root.origin,
    connections: options.connections ?? 16,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  const prefix = root.pathname.replace(/\/+$/, '');
  const baseHeaders = {
    authorization: `Api-Token ${token}`,
    accept: 'application/json',
    'user-agent': 'dashcd',
  };

  async function requestText(method: HttpMethod, path: string, opts: RequestTextOptions = {}): Promise<TextResponse> {
    const search = opts.query?.toString() ?? '';
    const fullPath = `${prefix}${path}${search === '' ? '' : `?${search}`}`;
    const site = { method, url: displayUrl(new URL(fullPath, root.origin), redact) };
    const body = encodeBody(opts.body);
    const headers = body === undefined ? baseHeaders : { ...baseHeaders, 'content-type': 'application/json' };
    const signal = combineSignals(options.signal, opts.signal);
    const { outcome, attempts } = await runWithRetry(
      () => transport.send({ method, path: fullPath, headers, body, signal }),
      {
        policy,
        clock,
        random,
        signal,
        idempotent: opts.idempotent ?? method !== 'POST',
        onRetry: (info) => logRetry(log, site, info),
      },
    );
    if (outcome.kind === 'transport') {
      throw transportErrorFrom(outcome.reason, outcome.cause, { ...site, baseUrl, attempts, redact });
    }
    return { status: outcome.status, headers: outcome.headers, text: outcome.text, ...site, attempts };
  }

  function fail(response: TextResponse): ApiError {
    const ctx: FailureContext = { ...response, baseUrl, redact };
    return apiErrorFrom(response.status, response.text, ctx);
  }

  const core = { request: requestText, fail };
  return {
    baseUrl,
    dashboards: createDashboardsApi(core),
    events: {
      async fetchPageText(query) {
        const response = await requestText('GET', EVENTS, { query });
        if (response.status !== 200) throw fail(response);
        // A cheap shape check only: parsing here would lose precision on eventIds and cost a second parse.
        if (!/^\s*\{[\s\S]*\}\s*$/.test(response.text)) {
          throw unexpectedResponse(response, ['body is not a JSON object']);
        }
        return response.text;
      },
    },
    requestText,
    fail,
    close: () => transport.close(),
  };
}

function parseBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`not a URL: ${JSON.stringify(raw)} — set DT_ENV_URL to the environment root`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TypeError(`unsupported protocol ${url.protocol} in the target URL — use http or https`);
  }
  url.search = '';
  url.hash = '';
  return url;
}

function encodeBody(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === 'string' ? body : JSON.stringify(body);
}

function combineSignals(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}

/** Rate limiting is flow control, so a 429 retry is debug; a failing target (5xx, no answer) is a warning. */
function logRetry(log: Logger, site: { method: HttpMethod; url: string }, info: RetryInfo): void {
  const { outcome } = info;
  const fields = {
    method: site.method,
    url: site.url,
    ...(outcome.kind === 'response' ? { status: outcome.status } : { reason: outcome.reason }),
    attempt: info.attempt,
    waitMs: info.waitMs,
  };
  if (outcome.kind === 'response' && outcome.status === 429) log.debug(fields, 'retrying request');
  else log.warn(fields, 'retrying request');
}
