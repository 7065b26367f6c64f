/**
 * The retry policy, as pure functions. undici's own RetryHandler/retry interceptor is deliberately NOT used: it
 * has no jitter (synchronised clients retry in lock-step), caps Retry-After at 30 s, and ignores X-RateLimit-Reset,
 * which the real service's documentation still describes. So the policy is ours: full jitter, the server's hints
 * as a lower bound, an overall deadline, and never retrying a 4xx other than 429.
 */

export interface RetryPolicy {
  /** Attempts in total, the first one included. */
  readonly maxAttempts: number;
  /** Backoff before retry n (0-based) is `random() * min(maxDelayMs, baseDelayMs * 2^n)`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /**
   * Overall budget from the first attempt: a wait that would end past it fails now with the last outcome, and an
   * attempt still running at it is cut there (attemptBound).
   */
  readonly deadlineMs: number;
  /**
   * How long one attempt may take, from sending to the body's last byte (default DEFAULT_ATTEMPT_TIMEOUT_MS). undici's
   * own timeouts only bound each wait between bytes, so a body trickling a byte a second never ended.
   */
  readonly attemptTimeoutMs?: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 8,
  baseDelayMs: 250,
  maxDelayMs: 15_000,
  deadlineMs: 60_000,
};

/**
 * The largest answer, a 50 MB document, at about 3.5 Mbit/s. Under the default deadline (60 s) the deadline ends an
 * attempt first; this bounds each attempt of a request given a longer deadline.
 */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 120_000;

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What one attempt produced: an HTTP answer (any status), or no answer at all. */
export type AttemptOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly headers: ResponseHeaders }
  | { readonly kind: 'transport'; readonly reason: string };

export type RetryDecision =
  | { readonly retry: true; readonly waitMs: number; readonly hintMs: number | undefined }
  | { readonly retry: false; readonly why: 'success' | 'not-retryable' | 'max-attempts' | 'deadline' };

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
/** For a request that must not run twice: statuses that say the request was not processed. */
const UNPROCESSED_STATUS = new Set([429, 503]);

const RETRYABLE_TRANSPORT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  // An attempt past its time limit (attempt-time.ts): a timeout like the two above.
  'ATTEMPT_TIMEOUT',
]);
/** Failures before a connection existed: the request was never sent, so even a non-idempotent one may retry. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether the outcome is worth another attempt. A non-idempotent request (POST create) only retries when the
 * server cannot have acted on it: 429/503 answers and failures to connect; a reset mid-request might have created
 * the dashboard already.
 */
export function isRetryable(outcome: AttemptOutcome, idempotent: boolean): boolean {
  if (outcome.kind === 'response') {
    return (idempotent ? RETRYABLE_STATUS : UNPROCESSED_STATUS).has(outcome.status);
  }
  return (idempotent ? RETRYABLE_TRANSPORT : NEVER_SENT).has(outcome.reason);
}

/** Full jitter (AWS architecture blog, "Exponential Backoff and Jitter"): uniform in [0, min(cap, base·2^n)). */
export function backoffMs(retryIndex: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

function firstHeader(headers: ResponseHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `Retry-After` as milliseconds from now: delta-seconds (decimals tolerated) or an HTTP-date. Undefined when
 * absent or unparseable; a date in the past is 0.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.ceil(Number(text) * 1000);
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with a day name; Date.parse alone takes "-5".
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/**
 * `X-RateLimit-Reset` as milliseconds from now. It is a Unix timestamp whose unit clients disagree on (the
 * service documents microseconds, Monaco today assumes seconds), so the unit is read from the magnitude: below
 * 1e11 seconds, below 1e14 milliseconds, otherwise microseconds. A value below 1e9 (before 2001) cannot be a
 * timestamp and is taken as a delay in seconds, which is what some other servers send.
 */
export function parseRateLimitReset(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  if (n < 1e9) return Math.ceil(n * 1000);
  const resetAtMs = n < 1e11 ? n * 1000 : n < 1e14 ? n : n / 1000;
  return Math.max(0, Math.ceil(resetAtMs - nowMs));
}

/** The server's own lower bound for the next attempt: the later of Retry-After and X-RateLimit-Reset. */
export function serverHintMs(headers: ResponseHeaders, nowMs: number): number | undefined {
  const hints = [
    parseRetryAfter(firstHeader(headers, 'retry-after'), nowMs),
    parseRateLimitReset(firstHeader(headers, 'x-ratelimit-reset'), nowMs),
  ].filter((hint): hint is number => hint !== undefined);
  return hints.length === 0 ? undefined : Math.max(...hints);
}

export interface DecideInput {
  readonly outcome: AttemptOutcome;
  /** Attempts made so far, this one included (1 after the first). */
  readonly attempts: number;
  readonly idempotent: boolean;
  readonly policy: RetryPolicy;
  readonly startedAtMs: number;
  readonly nowMs: number;
  readonly random: () => number;
}

/**
 * Nothing listening at the address: a server restarting is back within a few seconds, a wrong port or a server that
 * is not running never is. Eight attempts kept `plan` against a stopped local server busy for 19 s. The waits between
 * them are at least twice the backoff's base, doubling (0.5, 1, 2 s by default): with full jitter alone the three
 * could add up to nothing.
 */
export const REFUSED_ATTEMPTS = 4;

function isRefused(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'transport' && outcome.reason === 'ECONNREFUSED';
}

function attemptsFor(outcome: AttemptOutcome, policy: RetryPolicy): number {
  return isRefused(outcome) ? Math.min(policy.maxAttempts, REFUSED_ATTEMPTS) : policy.maxAttempts;
}

/** Decides whether and how long to wait before the next attempt. Pure: time and randomness come in. */
export function decideRetry(input: DecideInput): RetryDecision {
  const { outcome, attempts, policy } = input;
  if (outcome.kind === 'response' && outcome.status < 400) return { retry: false, why: 'success' };
  if (!isRetryable(outcome, input.idempotent)) return { retry: false, why: 'not-retryable' };
  if (attempts >= attemptsFor(outcome, policy)) return { retry: false, why: 'max-attempts' };
  const hintMs = outcome.kind === 'response' ? serverHintMs(outcome.headers, input.nowMs) : undefined;
  const floorMs = isRefused(outcome) ? 2 * policy.baseDelayMs * 2 ** (attempts - 1) : 0;
  const waitMs = Math.max(hintMs ?? 0, floorMs, backoffMs(attempts - 1, policy, input.random));
  if (input.nowMs + waitMs > input.startedAtMs + policy.deadlineMs) return { retry: false, why: 'deadline' };
  return { retry: true, waitMs, hintMs };
}

/** What ends the next attempt if it is still running: its own time limit, or the deadline when that comes first. */
export interface AttemptBound {
  /** Time the attempt has, from now; 0 or less when the deadline has passed. */
  readonly ms: number;
  readonly by: 'attempt' | 'deadline';
  /** The limit as configured, for messages: the attempt's time limit or the whole deadline. */
  readonly limitMs: number;
}

export function attemptBound(policy: RetryPolicy, startedAtMs: number, nowMs: number): AttemptBound {
  const attemptMs = policy.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
  const leftMs = startedAtMs + policy.deadlineMs - nowMs;
  if (leftMs < attemptMs) return { ms: leftMs, by: 'deadline', limitMs: policy.deadlineMs };
  return { ms: attemptMs, by: 'attempt', limitMs: attemptMs };
}
