import type { IncomingMessage } from 'node:http';
import { collectBody } from '../../lib/collect-body.js';
import { PlatformScope } from '../../schema/scopes.js';
import type { PlatformCredentials } from '../auth/platform-credentials.js';
import type { DocumentResponse } from './document-routes.js';

const FORM_MAX_BYTES = 16 * 1024;

/**
 * The OAuth 2.0 client-credentials grant (RFC 6749 §4.4) as Dynatrace SSO answers it at `/sso/oauth2/token`: a form
 * body with `grant_type=client_credentials`, `client_id`, `client_secret` (or HTTP Basic) and `scope` (space
 * separated; all of the client's when absent; `resource` is accepted and ignored). Errors are OAuth's own
 * `{"error","error_description"}`, not the platform envelope: that is what OAuth clients (the SDK's) read; a body
 * over FORM_MAX_BYTES is 413 (RFC 6749 says 400 "unless specified otherwise", and HTTP specifies it).
 */
export async function answerTokenRequest(req: IncomingMessage, credentials: PlatformCredentials): Promise<DocumentResponse> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded.');
  const body = await collectBody(req, { limit: FORM_MAX_BYTES });
  if (!body.ok && body.why === 'too-large') return oauthError(413, 'invalid_request', `The body is over ${FORM_MAX_BYTES} bytes.`);
  if (!body.ok) return oauthError(400, 'invalid_request', 'The request body was cut off before its end.');
  const form = new URLSearchParams(body.bytes.toString('utf8'));
  if (form.get('grant_type') !== 'client_credentials') return oauthError(400, 'unsupported_grant_type', "Only grant_type=client_credentials is supported.");
  const basic = basicCredentials(req.headers.authorization);
  const clientId = form.get('client_id') ?? basic?.id;
  const secret = form.get('client_secret') ?? basic?.secret;
  if (!clientId || !secret) return oauthError(401, 'invalid_client', 'client_id and client_secret are required.');
  const scopeText = form.get('scope')?.trim();
  const scopes = scopeText ? scopeText.split(/\s+/) : undefined;
  const unknown = (scopes ?? []).filter((scope) => !PlatformScope.safeParse(scope).success);
  if (unknown.length > 0) return oauthError(400, 'invalid_scope', `Unknown scopes: ${unknown.join(' ').slice(0, 200)}.`);
  const outcome = await credentials.grant(clientId, secret, scopes);
  if (!outcome.ok) return oauthError(outcome.error === 'invalid_client' ? 401 : 400, outcome.error, outcome.description);
  return {
    status: 200,
    body: { scope: outcome.scopes.join(' '), token_type: 'Bearer', expires_in: outcome.expiresIn, access_token: outcome.accessToken },
    headers: { 'cache-control': 'no-store', pragma: 'no-cache' },
  };
}

function oauthError(status: number, error: string, description: string): DocumentResponse {
  return { status, body: { error, error_description: description }, headers: { 'cache-control': 'no-store' } };
}

function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon === -1) return undefined;
  return { id: formDecoded(decoded.slice(0, colon)), secret: formDecoded(decoded.slice(colon + 1)) };
}

/** RFC 6749 §2.3.1 form-encodes both before Basic; a malformed escape is taken as it is (and fails the check). */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

