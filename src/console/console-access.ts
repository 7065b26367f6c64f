import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** How long a browser stays signed in after giving a token. */
const SESSION_MS = 12 * 3_600_000;
const COOKIE = 'dashcd_console';

export interface AccessOptions {
  /** The address the server listens on: a loopback one needs no token (only this machine can connect). */
  host: string;
  /** True for a token with ReadConfig; absent: there is no token store to check against (then loopback only). */
  verify?: ((token: string) => boolean) | undefined;
  now?: () => number;
}

export type AccessDecision = { kind: 'allowed' } | { kind: 'sign-in' } | { kind: 'loopback-only' };

/**
 * Who may read the console. Bound to loopback: everyone who can connect. Elsewhere: a request with an
 * `Authorization: Api-Token` header holding a ReadConfig token, or a browser that signed in with one (it then holds
 * a random session id in an HttpOnly cookie; the token itself is kept nowhere and never shown).
 */
export function createAccess(options: AccessOptions): {
  decide(req: IncomingMessage): AccessDecision;
  signIn(token: string): string | undefined;
} {
  const now = options.now ?? Date.now;
  const sessions = new Map<string, number>();
  const open = isLoopback(options.host);
  return {
    decide(req) {
      if (open) return { kind: 'allowed' };
      if (!options.verify) return { kind: 'loopback-only' };
      const header = /^Api-Token[ \t]+(\S+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1];
      if (header !== undefined && options.verify(header)) return { kind: 'allowed' };
      const session = cookieOf(req, COOKIE);
      const expires = session === undefined ? undefined : sessions.get(session);
      if (session !== undefined && expires !== undefined) {
        if (expires > now()) return { kind: 'allowed' };
        sessions.delete(session);
      }
      return { kind: 'sign-in' };
    },
    /** A Set-Cookie value for a good token, else undefined. */
    signIn(token) {
      if (!options.verify?.(token)) return undefined;
      for (const [id, expires] of sessions) if (expires <= now()) sessions.delete(id);
      const id = randomBytes(24).toString('base64url');
      sessions.set(id, now() + SESSION_MS);
      return `${COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/ui; Max-Age=${SESSION_MS / 1000}`;
    },
  };
}

export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost') return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
