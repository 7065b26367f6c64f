import { errorMessage } from '../lib/error-message.js';
import { request } from 'undici';
import { z } from 'zod';
import { systemClock, type Clock } from '../lib/clock.js';
import { DEFAULT_TOKEN_URL } from '../lib/platform-url.js';
import { BODY_LIMIT_BYTES } from '../schema/limits.js';
import { AttemptTimedOut, timeLimited } from './attempt-time.js';
import { BodyOverLimit, readText } from './bounded-body.js';
import { attemptBound, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry.js';

/** An access token is replaced this long before it expires, so no request goes out with one about to lapse. */
const REFRESH_MARGIN_MS = 30_000;

/** A token answer is a few kB (the access token and its lifetime); a body past this is not one. */
const TOKEN_ANSWER_LIMIT_BYTES = BODY_LIMIT_BYTES;

export type PlatformCredential =
  | { readonly kind: 'platform-token'; readonly token: string }
  | {
      readonly kind: 'oauth-client';
      readonly clientId: string;
      readonly clientSecret: string;
      readonly tokenUrl: string;
      /** Asked for at the token endpoint; all the client's when empty. */
      readonly scopes: readonly string[];
    };

/** Where the bearer token of platform requests comes from; the secrets never leave it except in the header. */
export interface BearerSource {
  /** The token for the next request: fetched, or refreshed before it expires, for an OAuth client. */
  token(signal?: AbortSignal): Promise<string>;
  /** Forget the current access token (the server said 401): the next `token()` asks for a new one. */
  invalidate(): void;
  /** What to scrub from messages and logs. */
  readonly secrets: () => readonly string[];
}

const TokenResponse = z.object({ access_token: z.string().min(1), expires_in: z.number().positive(), token_type: z.string().optional() });

export class PlatformAuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlatformAuthError';
  }
}

/**
 * The platform credential from the environment: `DT_PLATFORM_TOKEN`, or an OAuth client (`DT_CLIENT_ID`,
 * `DT_CLIENT_SECRET`, optional `DT_OAUTH_TOKEN_URL` and space-separated `DT_OAUTH_SCOPES`); undefined when none is
 * set. A half-set client is an error naming what is missing.
 */
export function platformCredentialFromEnv(env: Readonly<Record<string, string | undefined>>, defaultTokenUrl = DEFAULT_TOKEN_URL): PlatformCredential | undefined {
  const token = env.DT_PLATFORM_TOKEN?.trim();
  if (token) return { kind: 'platform-token', token };
  const clientId = env.DT_CLIENT_ID?.trim();
  const clientSecret = env.DT_CLIENT_SECRET?.trim();
  if (!clientId && !clientSecret) return undefined;
  if (!clientId || !clientSecret) throw new PlatformAuthError(`an OAuth client needs both DT_CLIENT_ID and DT_CLIENT_SECRET; ${clientId ? 'DT_CLIENT_SECRET' : 'DT_CLIENT_ID'} is not set`);
  return {
    kind: 'oauth-client',
    clientId,
    clientSecret,
    tokenUrl: env.DT_OAUTH_TOKEN_URL?.trim() || defaultTokenUrl,
    scopes: (env.DT_OAUTH_SCOPES ?? '').split(/[\s,]+/).filter((scope) => scope !== ''),
  };
}

/**
 * `policy` bounds the token request as a first attempt of the requests it serves (attemptBound): undici's waits
 * between bytes alone would let an endpoint trickle its answer forever.
 */
export function bearerSource(
  credential: PlatformCredential,
  { clock = systemClock, policy = DEFAULT_RETRY_POLICY }: { clock?: Pick<Clock, 'now'>; policy?: RetryPolicy } = {},
): BearerSource {
  if (credential.kind === 'platform-token') {
    return { token: () => Promise.resolve(credential.token), invalidate: () => undefined, secrets: () => [credential.token] };
  }
  let current: { token: string; refreshAt: number } | undefined;
  let pending: Promise<string> | undefined;
  const fetchToken = async (signal?: AbortSignal): Promise<string> => {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.clientId, client_secret: credential.clientSecret });
    if (credential.scopes.length > 0) form.set('scope', credential.scopes.join(' '));
    let response;
    let text;
    const now = clock.now();
    const limit = timeLimited(signal, attemptBound(policy, now, now));
    try {
      response = await request(credential.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'user-agent': 'dashcd' },
        body: form.toString(),
        signal: limit.signal,
      });
      text = await readText(response, TOKEN_ANSWER_LIMIT_BYTES);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new PlatformAuthError(`the OAuth token endpoint ${credential.tokenUrl} ${tokenFailure(limit.signal.reason ?? error)}`);
    } finally {
      limit.clear();
    }
    const parsed = parseTokenResponse(text);
    if (response.statusCode !== 200 || !parsed.success) {
      const oauthError = /"error"\s*:\s*"([a-z_]+)"/.exec(text)?.[1];
      throw new PlatformAuthError(
        `the OAuth token endpoint ${credential.tokenUrl} answered ${response.statusCode}${oauthError ? ` (${oauthError})` : ''} for client ${credential.clientId} — check DT_CLIENT_ID, DT_CLIENT_SECRET and the client's scopes`,
      );
    }
    const lifetimeMs = parsed.data.expires_in * 1000;
    current = { token: parsed.data.access_token, refreshAt: clock.now() + Math.max(lifetimeMs / 2, lifetimeMs - REFRESH_MARGIN_MS) };
    return current.token;
  };
  return {
    token(signal) {
      if (current && clock.now() < current.refreshAt) return Promise.resolve(current.token);
      // Concurrent requests share one token request.
      pending ??= fetchToken(signal).finally(() => (pending = undefined));
      return pending;
    },
    invalidate: () => (current = undefined),
    secrets: () => [credential.clientSecret, ...(current ? [current.token] : [])],
  };
}

function tokenFailure(error: unknown): string {
  if (error instanceof AttemptTimedOut) return `gave ${error.message}`;
  if (error instanceof BodyOverLimit) return `answered ${error.status}: ${error.message}`;
  return `could not be reached: ${errorMessage(error)}`;
}

function parseTokenResponse(text: string): ReturnType<typeof TokenResponse.safeParse> {
  try {
    return TokenResponse.safeParse(JSON.parse(text));
  } catch {
    return TokenResponse.safeParse(undefined);
  }
}
