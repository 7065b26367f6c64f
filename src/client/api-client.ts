import { systemClock, type Clock } from '../lib/clock.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { createDashboardsApi, type DashboardsApi } from './dashboards-api.js';
import type { DocumentsClient } from './documents-api.js';
import type { ApiError, HttpMethod } from './errors.js';
import { createEventsApi, type EventsApi } from './events-api.js';
import { apiErrorFrom, type TargetOrigin } from './messages.js';
import { createRedactor, displayUrl } from './redact.js';
import { createRequester, type RequestTextOptions } from './request.js';
import type { TextResponse } from './response.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';
import { createTransport } from './transport.js';

export type { ValidationOutcome, DashboardsApi } from './dashboards-api.js';
export type { EventsApi } from './events-api.js';
export type { RequestTextOptions } from './request.js';
export type { TextResponse } from './response.js';
export type { RetryPolicy } from './retry.js';

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
  /** Where the URL and token came from, named in failures' hints (default DT_ENV_URL and DT_API_TOKEN). */
  origin?: TargetOrigin;
}

export interface ApiClient {
  /** The normalised environment root, redacted for display (no userinfo, no token). */
  readonly baseUrl: string;
  dashboards: DashboardsApi;
  events: EventsApi;
  /**
   * The environment's platform Document service (platform dashboards and notebooks), when the target has one
   * configured: the embedded server always, a real environment with a platform credential (withDocuments).
   */
  readonly documents?: DocumentsClient;
  /** Without `documents`: what the caller knows to set for one, when it knows more than that none is configured. */
  readonly noDocuments?: string;
  /** Any call below the environment root; returns the final answer whatever its status (retries applied). */
  requestText(method: HttpMethod, path: string, options?: RequestTextOptions): Promise<TextResponse>;
  /** The one-line ApiError for an answer an operation does not accept (e.g. after requestText). */
  fail(response: TextResponse): ApiError;
  close(): Promise<void>;
}

/**
 * The client for one environment, the embedded server and a real one alike: one keep-alive pool, one retry
 * policy, responses checked against the shared schemas, and the token kept out of every message and log line.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const { token, log = silentLogger(), clock = systemClock, random = Math.random } = options;
  const root = parseBaseUrl(options.baseUrl);
  const redact = createRedactor(token);
  const baseUrl = displayUrl(root, redact);
  const transport = createTransport({
    origin: root.origin,
    connections: options.connections ?? 16,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
  const request = createRequester({
    root,
    baseUrl,
    token,
    transport,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    clock,
    random,
    log,
    redact,
    signal: options.signal,
    origin: options.origin,
  });
  const fail = (response: TextResponse): ApiError =>
    apiErrorFrom(response.status, response.text, { ...response, baseUrl, redact, origin: options.origin });
  const core = { request, fail, redact };
  return {
    baseUrl,
    dashboards: createDashboardsApi(core),
    events: createEventsApi(core),
    requestText: request,
    fail,
    close: () => transport.close(),
  };
}

/** The same environment's client with its Document service beside it; closing it closes both. */
export function withDocuments(api: ApiClient, documents: DocumentsClient): ApiClient {
  return {
    ...api,
    documents,
    close: async () => {
      await Promise.all([api.close(), documents.close()]);
    },
  };
}

/** The same environment's client without a Document service, saying what to set for one (withDocuments' other side). */
export function withoutDocuments(api: ApiClient, reason: string): ApiClient {
  return { ...api, noDocuments: reason };
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
