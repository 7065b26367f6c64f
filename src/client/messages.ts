import { DOCUMENT_API_PREFIX } from '../schema/documents.js';
import { ErrorEnvelope } from '../schema/error-envelope.js';
import { SCOPE_DESCRIPTIONS, type Scope } from '../schema/scopes.js';
import { ApiError, OWNER_REFUSAL, TransportError, type RequestSite } from './errors.js';
import { printable } from '../lib/printable.js';

/**
 * Where the target's URL and token came from, as the hints name them: `DT_ENV_URL`/`DT_API_TOKEN` (the default),
 * `--target`, or an environment of dashcd.yaml and the variable its `tokenEnv` names.
 */
export interface TargetOrigin {
  readonly url: string;
  readonly token: string;
}

export const DEFAULT_ORIGIN: TargetOrigin = { url: 'DT_ENV_URL', token: 'DT_API_TOKEN' };

/** Everything a message needs besides the failure itself; every string here is already redacted. */
export interface FailureContext extends RequestSite {
  readonly baseUrl: string;
  readonly attempts: number;
  readonly redact: (text: string) => string;
  readonly origin?: TargetOrigin | undefined;
}

/** Builds the ApiError for a final non-accepted status: one line saying what, where and what to do. */
export function apiErrorFrom(status: number, text: string, ctx: FailureContext): ApiError {
  const envelope = parseEnvelope(text);
  const serverMessage = envelope === undefined ? undefined : ctx.redact(envelope.error.message);
  const message = describeStatus(status, serverMessage, envelope, ctx);
  return new ApiError(message, { status, envelope, method: ctx.method, url: ctx.url, attempts: ctx.attempts });
}

export function parseEnvelope(text: string): ErrorEnvelope | undefined {
  if (text.trim() === '') return undefined;
  try {
    const parsed = ErrorEnvelope.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  500: 'internal server error',
  502: 'bad gateway',
  503: 'service unavailable',
  504: 'gateway timeout',
};

/**
 * The message is printed on the operator's terminal and in CI logs: the target's own words in it (its message,
 * its violations) are made `printable` as they are put in, so a hostile target can neither drive the terminal nor
 * start a line of its own (a GitHub Actions `::error` or `::add-mask::` line). The envelope itself stays as sent.
 */
function describeStatus(
  status: number,
  sent: string | undefined,
  envelope: ErrorEnvelope | undefined,
  ctx: FailureContext,
): string {
  const serverMessage = sent === undefined ? undefined : printable(sent);
  const where = `${ctx.method} ${ctx.url}`;
  const tries = ctx.attempts > 1 ? ` (gave up after ${ctx.attempts} attempts)` : '';
  const origin = ctx.origin ?? DEFAULT_ORIGIN;
  if (status === 401) {
    const detail = serverMessage === undefined ? '' : ` (${serverMessage})`;
    return `401 from ${ctx.baseUrl}: token rejected${detail} — check ${origin.token}`;
  }
  if (status === 403) return describeForbidden(serverMessage, ctx, origin.token);
  if (status === 404 && envelope === undefined) {
    return `404 from ${where}: no such API path — is ${origin.url} the environment root (http://host/e/<env> or https://<id>.live.dynatrace.com)?`;
  }
  if (status === 429) return `429 from ${where}: rate limited${tries} — retry later or lower the concurrency`;
  if (status >= 300 && status < 400) return `${status} from ${where}: the target redirects, and dashcd follows no redirect (the token stays with this host) — set ${origin.url} to the address it leads to`;
  if (status >= 500) {
    const what = serverMessage ?? STATUS_TEXT[status] ?? 'server error';
    return `${status} from ${where}: ${what}${tries} — the target is failing; retry later`;
  }
  const violations = summarizeViolations(envelope, ctx.redact);
  return `${status} from ${where}: ${serverMessage ?? 'unexpected status'}${violations}`;
}

const MISSING_SCOPE = 'Use one of:';
const LISTED_SCOPES_CHARS = 200;

/**
 * The scopes a 403 lists after "Use one of:", at most 200 characters of them. Cut and trimmed, not matched: the
 * target's message is not ours, and `/Use one of:\s*(.+?)\s*$/` over "a", 100,000 spaces, "b" took 14 s.
 */
function listedScopes(serverMessage: string): string | undefined {
  const at = serverMessage.indexOf(MISSING_SCOPE);
  if (at === -1) return undefined;
  const listed = serverMessage.slice(at + MISSING_SCOPE.length).trim();
  if (listed === '') return undefined;
  return listed.length > LISTED_SCOPES_CHARS ? `${listed.slice(0, LISTED_SCOPES_CHARS).trim()}…` : listed;
}

function describeForbidden(serverMessage: string | undefined, ctx: FailureContext, token: string): string {
  const listed = serverMessage === undefined ? undefined : listedScopes(serverMessage);
  if (listed !== undefined) {
    return `403 from ${ctx.baseUrl}: token is missing scope ${listed} — put a token with it in ${token}`;
  }
  return `403 from ${ctx.baseUrl}: ${serverMessage ?? 'forbidden'} — ${forbiddenAdvice(serverMessage, ctx, token)}`;
}

/** A refusal that names a scope is about the token, whoever owns the document. */
const NAMES_SCOPE = /\bscope\b/i;

/**
 * What to do about a 403, by its reason: a token's scope cannot help where only a document's owner may act (the
 * Document service: ownership decides beside the scope), and a bare "Forbidden" about one document may be either.
 * A scope's advice names where the token came from (`token`: the variable, or dashcd.yaml's).
 */
function forbiddenAdvice(serverMessage: string | undefined, ctx: FailureContext, token: string): string {
  if (serverMessage !== undefined && OWNER_REFUSAL.test(serverMessage)) return `no token scope changes that: ${ownerFix(ctx.method)}`;
  const scope = requiredScope(ctx.method, ctx.url);
  if (scope !== undefined) return `use a token with scope ${scope} (${SCOPE_DESCRIPTIONS[scope]}) in ${token}`;
  if (ctx.url.includes(`${DOCUMENT_API_PREFIX}/documents/`) && !NAMES_SCOPE.test(serverMessage ?? '')) {
    const owners = ctx.method === 'GET' ? 'only its owner may read a private one' : 'only its owner may change or delete it';
    return `use a token with the scope this call needs in ${token}; or, if the document is another user's (${owners}): ${ownerFix(ctx.method)}`;
  }
  return `use a token with the scope this call needs in ${token}`;
}

/** The way past an owner's refusal: read as or with the owner's consent, or write as the owner. */
function ownerFix(method: string): string {
  if (method === 'GET') return "have the owner make it public, or use the owner's credentials";
  return "use the owner's credentials, or have the document owned by the identity dashcd runs as";
}

/** The scope the real service asks for, by endpoint family, for a 403 without one (docs/real-service-behaviour.md §7). */
export function requiredScope(method: string, url: string): Scope | undefined {
  if (url.includes('/api/config/v1/')) return method === 'GET' ? 'ReadConfig' : 'WriteConfig';
  if (url.includes('/api/v1/events')) return 'DataExport';
  if (url.includes('/api/v1/deployment/')) return 'InstallerDownload';
  return undefined;
}

const SHOWN_VIOLATIONS = 3;

function summarizeViolations(envelope: ErrorEnvelope | undefined, redact: (text: string) => string): string {
  const violations = envelope?.error.constraintViolations ?? [];
  if (violations.length === 0) return '';
  const shown = violations
    .slice(0, SHOWN_VIOLATIONS)
    .map((v) => printable(redact(`${v.path ?? ''}${v.path ? ': ' : ''}${v.message ?? ''}`)));
  const more = violations.length > SHOWN_VIOLATIONS ? ` (+${violations.length - SHOWN_VIOLATIONS} more)` : '';
  return ` ${shown.join('; ')}${more}`;
}

const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);
const TIMEOUTS = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Builds the TransportError for a request that got no HTTP answer, after the retry loop gave up. */
export function transportErrorFrom(reason: string, cause: unknown, ctx: FailureContext): TransportError {
  const tries = ctx.attempts > 1 ? ` (after ${ctx.attempts} attempts)` : '';
  const origin = ctx.origin ?? DEFAULT_ORIGIN;
  let message: string;
  if (reason === 'ENOTFOUND') {
    message = `could not reach ${ctx.baseUrl}: ENOTFOUND${tries} — check the host name in ${origin.url}`;
  } else if (NEVER_CONNECTED.has(reason)) {
    message = `could not reach ${ctx.baseUrl}: ${reason}${tries} — is the target running? (${origin.url})`;
  } else if (reason.startsWith('ERR_SSL') && ctx.baseUrl.startsWith('https:')) {
    // A TLS handshake answered in plain HTTP (`wrong version number`): retrying cannot help, the scheme is wrong.
    message = `could not reach ${ctx.baseUrl}: ${reason} — the server does not speak TLS; if it serves plain HTTP (as dashcd serve does), use ${ctx.baseUrl.replace(/^https:/, 'http:')}`;
  } else if (TIMEOUTS.has(reason)) {
    message = `no answer to ${ctx.method} ${ctx.url}: ${reason}${tries} — the target is slow or unreachable; retry later`;
  } else {
    message = `connection to ${ctx.baseUrl} failed during ${ctx.method} ${ctx.url}: ${reason}${tries} — retry later`;
  }
  return new TransportError(message, { reason, cause, method: ctx.method, url: ctx.url, attempts: ctx.attempts });
}

/** The most specific code an error carries: undici codes, Node's errno codes, or those of a nested cause. */
export function transportReason(error: unknown, depth = 0): string {
  if (typeof error !== 'object' || error === null || depth > 3) return 'UNKNOWN';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code !== '') return code;
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested) && nested.length > 0) return transportReason(nested[0], depth + 1);
  const cause = (error as { cause?: unknown }).cause;
  if (cause !== undefined) return transportReason(cause, depth + 1);
  return 'UNKNOWN';
}
