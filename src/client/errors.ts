import type { ErrorEnvelope } from '../schema/error-envelope.js';

/** PATCH: the platform Document service's updates (documents-api.ts). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Where a request went; `url` is already redacted (no token, no userinfo). */
export interface RequestSite {
  readonly method: HttpMethod;
  readonly url: string;
}

/**
 * What every client error carries: where the request went. Not exported, so the three classes below stay the
 * whole public API; it only keeps their constructors from repeating the site bookkeeping.
 */
abstract class RequestSiteError extends Error {
  readonly method: HttpMethod;
  readonly url: string;

  constructor(name: string, message: string, site: RequestSite, options?: ErrorOptions) {
    super(message, options);
    this.name = name;
    this.method = site.method;
    this.url = site.url;
  }
}

/**
 * The target answered with a status the operation does not accept. `status` and `envelope` are what callers branch
 * on; the message is for people and already names the cause and the fix.
 */
export class ApiError extends RequestSiteError {
  readonly code = 'API_ERROR' as const;
  readonly status: number;
  readonly envelope?: ErrorEnvelope;
  readonly attempts: number;

  constructor(
    message: string,
    init: RequestSite & { status: number; envelope?: ErrorEnvelope; attempts: number },
  ) {
    super('ApiError', message, init);
    this.status = init.status;
    this.envelope = init.envelope;
    this.attempts = init.attempts;
  }
}

/**
 * No HTTP answer at all: refused, reset, timed out, DNS failure. `reason` is the low-level code (`ECONNREFUSED`,
 * `UND_ERR_HEADERS_TIMEOUT`, …); `cause` keeps the original error.
 */
export class TransportError extends RequestSiteError {
  readonly code = 'TRANSPORT' as const;
  readonly reason: string;
  readonly attempts: number;

  constructor(message: string, init: RequestSite & { reason: string; attempts: number; cause: unknown }) {
    super('TransportError', message, init, { cause: init.cause });
    this.reason = init.reason;
    this.attempts = init.attempts;
  }
}

/**
 * A 2xx (or validator 400) whose body is not what the contract says: not JSON, or not the schema. Usually means
 * the base URL points at something that is not the API; never a crash deeper in the caller.
 */
export class UnexpectedResponseError extends RequestSiteError {
  readonly code = 'UNEXPECTED_RESPONSE' as const;
  readonly status: number;
  readonly problems: readonly string[];

  constructor(message: string, init: RequestSite & { status: number; problems: readonly string[] }) {
    super('UnexpectedResponseError', message, init);
    this.status = init.status;
    this.problems = init.problems;
  }
}

export type ClientError = ApiError | TransportError | UnexpectedResponseError;

/** A refusal that names a document's owner: only the owner may do this (docs/real-service-behaviour.md). */
export const OWNER_REFUSAL = /\bowner\b/i;

/**
 * A 403 about one document, not the token: the Document service lets only a document's owner change or delete it,
 * beside the scope, and says so. The same token goes on working for every other document.
 */
export function isOwnerRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 403 && OWNER_REFUSAL.test(error.envelope?.error.message ?? '');
}

/**
 * 401 or 403: the token is wrong or lacks a scope, so every other call would fail alike. The CLI maps this to exit
 * code 4. An owner's refusal (isOwnerRefusal) is not one: it concerns that document alone.
 */
export function isAuthError(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 401 || (error.status === 403 && !isOwnerRefusal(error)));
}

/** The target could not be reached at all (after retries). The CLI maps this to exit code 4. */
export function isUnreachable(error: unknown): error is TransportError {
  return error instanceof TransportError;
}

export function isClientError(error: unknown): error is ClientError {
  return (
    error instanceof ApiError || error instanceof TransportError || error instanceof UnexpectedResponseError
  );
}
