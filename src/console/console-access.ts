import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback, servesHost } from './listener-host.js';

/** How long a browser stays signed in after giving a token (unless the token goes first). */
const SESSION_MS = 12 * 3_600_000;
/**
 * Live sessions one token may hold (its browsers and tabs): signing in again past it ends that token's oldest. Without
 * a bound, a holder of one valid token could sign in without end (10,000 sign-ins held 25 MB, each scanned by the next).
 */
export const MAX_SESSIONS_PER_TOKEN = 16;
const COOKIE = 'dashcd_console';

/** The scopes a console page needs, as the API's routes need them: dashboards ReadConfig, events DataExport. */
export type ConsoleScope = 'ReadConfig' | 'DataExport';
const CONSOLE_SCOPES: readonly ConsoleScope[] = ['ReadConfig', 'DataExport'];

/** What the console may know of a token: its public id and scopes, never its secret. */
export interface TokenFacts {
  readonly id: string;
  readonly scopes: readonly string[];
}

/**
 * The token stores the API authenticates with, one per environment (console-tokens.ts): a token belongs to the one
 * environment whose store knows it, as on the API.
 */
export interface ConsoleTokens {
  environments(): readonly string[];
  /** The token's facts in `env`'s store; undefined when that store does not know it. */
  verify(env: string, token: string): TokenFacts | undefined;
  /** A stored token's facts as they are now, by public id; undefined once it is revoked. */
  current(env: string, id: string): TokenFacts | undefined;
}

export interface AccessOptions {
  /** The address the server listens on: a loopback one needs no token (only this machine can connect). */
  host: string;
  /** Absent: there is no token store to check against (then loopback only). */
  tokens?: ConsoleTokens | undefined;
  now?: () => number;
}

/** Who is asking: anyone (loopback), the holder of one token of one environment, or nobody known. */
export type Caller =
  | { kind: 'anyone' }
  | { kind: 'token'; env: string; scopes: readonly string[] }
  | { kind: 'anonymous' }
  | { kind: 'loopback-only' }
  /** A loopback listener reached under a name that is not its own: a DNS-rebound page, answered 421. */
  | { kind: 'wrong-host' };

/** `unauthorized` (401, sign in with a token of that environment) or `forbidden` (403, the token lacks the scope). */
export type Verdict = 'allowed' | 'unauthorized' | 'forbidden';

interface Session {
  env: string;
  tokenId: string;
  expires: number;
}

/**
 * Who may read which console page, decided as the API decides: per environment and scope. Bound to loopback:
 * everyone who connects under a loopback name. Elsewhere: an `Authorization: Api-Token` header, or a browser that
 * signed in with a token (it then holds a random session id in an HttpOnly cookie). A session remembers the token's
 * environment and public id only, and asks the token store again on every request: it ends when the token is
 * revoked, and follows the token's scopes as they are now.
 */
export function createAccess(options: AccessOptions): {
  caller(req: IncomingMessage): Caller;
  signIn(token: string): string | undefined;
} {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, Session>();
  const open = isLoopback(options.host);
  const { tokens } = options;

  const live = (session: Session): boolean => session.expires > now();

  function fromSession(req: IncomingMessage, store: ConsoleTokens): Caller {
    const id = cookieOf(req, COOKIE);
    const session = sessions.get(id);
    if (session === undefined) return { kind: 'anonymous' };
    const facts = live(session) ? store.current(session.env, session.tokenId) : undefined;
    if (facts === undefined) {
      sessions.delete(id);
      return { kind: 'anonymous' };
    }
    return { kind: 'token', env: session.env, scopes: facts.scopes };
  }

  return {
    caller(req) {
      if (open) return servesHost(req) ? { kind: 'anyone' } : { kind: 'wrong-host' };
      if (!tokens) return { kind: 'loopback-only' };
      // Stryker disable next-line StringLiteral: no header is read as a string; any string the pattern refuses answers the same
      const header = /^Api-Token[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
      // Stryker disable next-line ConditionalExpression: only narrows the type; no store knows an undefined token (owner answers undefined)
      const known = header === undefined ? undefined : owner(tokens, header);
      if (known) return { kind: 'token', env: known.env, scopes: known.facts.scopes };
      return fromSession(req, tokens);
    },
    /** A Set-Cookie value for a stored token with a console scope, else undefined. */
    signIn(token) {
      if (tokens === undefined) return undefined;
      const known = owner(tokens, token);
      // Only a stored token can be looked up again by id on later requests (an in-memory one of the process cannot).
      if (!known || !tokens.current(known.env, known.facts.id) || !CONSOLE_SCOPES.some((s) => known.facts.scopes.includes(s))) return undefined;
      const mine: string[] = [];
      for (const [id, session] of sessions) {
        if (!live(session)) sessions.delete(id);
        else if (session.env === known.env && session.tokenId === known.facts.id) mine.push(id);
      }
      // Oldest first: a Map keeps insertion order.
      for (const id of mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_TOKEN + 1))) sessions.delete(id);
      const id = randomBytes(24).toString('base64url');
      sessions.set(id, { env: known.env, tokenId: known.facts.id, expires: now() + SESSION_MS });
      return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=${SESSION_MS / 1000}`;
    },
  };
}

/** Whether `caller` may read `env`'s pages that need `scope`: a token of another environment is unknown there (401). */
export function verdict(caller: Caller, env: string, scope: ConsoleScope): Verdict {
  if (caller.kind === 'anyone') return 'allowed';
  // Stryker disable next-line ConditionalExpression: the kind check only narrows the type: no other caller has an env, so `caller.env !== env` holds for them too
  if (caller.kind !== 'token' || caller.env !== env) return 'unauthorized';
  return caller.scopes.includes(scope) ? 'allowed' : 'forbidden';
}

/** The environment whose store knows `token`, with its facts there. */
function owner(tokens: ConsoleTokens, token: string): { env: string; facts: TokenFacts } | undefined {
  for (const env of tokens.environments()) {
    const facts = tokens.verify(env, token);
    if (facts) return { env, facts };
  }
  return undefined;
}

/** The cookie's value; '' when the request has none (no session has that id). */
function cookieOf(req: IncomingMessage, name: string): string {
  // Stryker disable next-line StringLiteral: without a Cookie header any text without the name answers the same
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  // Stryker disable next-line StringLiteral: any id no session has answers the same
  return '';
}
