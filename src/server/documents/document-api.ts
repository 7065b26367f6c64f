import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.js';
import { redactText, type Logger } from '../../lib/logger.js';
import { DOCUMENT_CONTENT_MAX_BYTES, platformErrorEnvelope } from '../../schema/documents.js';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../../schema/ids.js';
import { PLATFORM_SCOPE_DESCRIPTIONS, type PlatformScope } from '../../schema/scopes.js';
import { PlatformCredentials, type Principal } from '../auth/platform-credentials.js';
import type { DataDirLayout } from '../data-dir.js';
import type { EnvironmentRegistry } from '../environments.js';
import { HttpError } from '../http/http-error.js';
import { sendRouteResponse } from '../http/respond.js';
import { closeIfBodyUnread } from '../http/unread-body.js';
import { createRouter, splitPath } from '../http/router.js';
import { StoreError } from '../store/store-error.js';
import { isDocumentServiceUrl } from './document-paths.js';
import { DOCUMENT_ROUTES, type DocumentResponse, type DocumentRoute } from './document-routes.js';
import { DocumentService } from './document-service.js';
import { openDocumentStore, type DocumentStore } from './document-store.js';
import { answerTokenRequest } from './oauth-token.js';

export interface DocumentApiDeps {
  readonly environments: EnvironmentRegistry;
  readonly layout: DataDirLayout;
  readonly clock: Clock;
  readonly log: Logger;
  /** The API's own body limit: above it node:http leaves `Expect: 100-continue` to us. */
  readonly bodyLimit: number;
}

export interface DocumentApi {
  /** Whether the URL is the Document service's or the token endpoint's (`/platform/…`, `/sso/…`, per environment too). */
  handles(url: string): boolean;
  listener(req: IncomingMessage, res: ServerResponse): void;
  /** An in-memory platform token of the environment (see PlatformCredentials.addEphemeral); its store opens if not yet. */
  addEphemeralToken(env: EnvironmentId, scopes: readonly PlatformScope[], subject: string): Promise<string>;
  /** Resolves once every acknowledged write of every open environment is in its record file (the bench's data-dir snapshots). */
  flushed(): Promise<void>;
  /** Lets writes in flight finish and closes every environment's document store. */
  close(): Promise<void>;
}

interface DocumentEnvironment {
  readonly service: DocumentService;
  readonly store: DocumentStore;
  readonly credentials: PlatformCredentials;
}

const DOCUMENT_PREFIX = ['platform', 'document', 'v1'];
const TOKEN_PATH = ['sso', 'oauth2', 'token'];
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;
const MAX_UPLOAD_BYTES = DOCUMENT_CONTENT_MAX_BYTES + 1024 * 1024;

/**
 * The platform Document service and its OAuth token endpoint on the embedded server, beside the classic API:
 * `/platform/document/v1/…` for `local`, `/e/{env}/platform/document/v1/…` for the others, likewise
 * `/sso/oauth2/token`. Its own auth (`Authorization: Bearer` with a platform token or an OAuth access token, and
 * platform scopes) and its own error envelope (`details.errorRef`), since both differ from the classic API's.
 * Each environment's store opens on first use under `env/<env>/documents/`.
 */
export function createDocumentApi(deps: DocumentApiDeps): DocumentApi {
  const router = createRouter(DOCUMENT_ROUTES);
  const opened = new Map<EnvironmentId, Promise<DocumentEnvironment>>();
  /** The environments whose stores are open, for answers given in the same turn (answerNow). */
  const ready = new Map<string, DocumentEnvironment>();
  let closed = false;

  const environment = async (raw: string): Promise<{ id: EnvironmentId; documents: DocumentEnvironment }> => {
    const parsed = EnvironmentId.safeParse(raw);
    const known = parsed.success ? (deps.environments.get(parsed.data) ?? (await deps.environments.find(parsed.data))) : undefined;
    if (!parsed.success || !known) throw new HttpError(404, `Environment ${raw.slice(0, 80)} not found.`);
    if (closed) throw new StoreError('STORE_CLOSED', 'The server is shutting down.');
    let documents = opened.get(parsed.data);
    if (!documents) {
      documents = openEnvironment(parsed.data, deps);
      opened.set(parsed.data, documents);
      const id = parsed.data;
      documents.then((open) => (closed ? undefined : ready.set(id, open)), () => opened.delete(id));
    }
    return { id: parsed.data, documents: await documents };
  };

  const dispatch = async (req: IncomingMessage, res: ServerResponse, path: RequestPath): Promise<DocumentResponse> => {
    const { url, segments, start } = path;
    const rest = segments.slice(start);
    const { documents } = await environment(start === 2 ? (segments[1] ?? '') : DEFAULT_ENVIRONMENT);
    if (rest.length === TOKEN_PATH.length && TOKEN_PATH.every((segment, i) => rest[i] === segment)) {
      if (req.method !== 'POST') throw new HttpError(405, 'Method not allowed here; allowed: POST.', undefined, { allow: 'POST' });
      return answerTokenRequest(req, documents.credentials);
    }
    if (!DOCUMENT_PREFIX.every((segment, i) => rest[i] === segment)) throw new HttpError(404, `No resource at ${url.slice(0, 80)}`);
    const match = router(req.method ?? 'GET', segments, start + DOCUMENT_PREFIX.length);
    if (match.kind === 'method-not-allowed') throw new HttpError(405, `Method not allowed here; allowed: ${match.allow.join(', ')}.`, undefined, { allow: match.allow.join(', ') });
    if (match.kind === 'not-found') throw new HttpError(404, `No resource at ${url.slice(0, 80)}`);
    const principal = await authenticate(req.headers.authorization, documents.credentials, match.route);
    inviteBody(req, res, deps.bodyLimit);
    return match.route.handle({ req, params: match.params, query: queryOf(path), caller: { subject: principal.subject }, service: documents.service });
  };

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const errorRef = randomUUID();
    const failure = asHttpError(error);
    if (failure.status >= 500) deps.log.error({ err: error, errorRef, method: req.method, url: redactText(req.url ?? '') }, 'document request failed');
    try {
      sendRouteResponse(res, { status: failure.status, body: platformErrorEnvelope(failure.status, failure.message, errorRef), headers: { ...failure.headers, ...closeIfBodyUnread(req) } });
    } catch {
      res.destroy();
    }
  };

  /**
   * Answers a read in this turn when everything it needs is in memory (an open store, a token verified before, the
   * content held) and says whether it did. Anything else, refusals included, goes through dispatch, which decides
   * the same way: this only skips the promises.
   */
  const answerNow = (req: IncomingMessage, res: ServerResponse, path: RequestPath): boolean => {
    if (req.method !== 'GET' || closed) return false;
    const { segments, start } = path;
    const documents = ready.get(start === 2 ? (segments[1] ?? '') : DEFAULT_ENVIRONMENT);
    if (!documents || !DOCUMENT_PREFIX.every((segment, i) => segments[start + i] === segment)) return false;
    const match = router('GET', segments, start + DOCUMENT_PREFIX.length);
    if (match.kind !== 'found' || !match.route.handleNow) return false;
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    const principal = token === undefined ? undefined : documents.credentials.verifiedNow(token);
    if (!principal?.scopes.includes(match.route.scope)) return false;
    let response: DocumentResponse | undefined;
    try {
      response = match.route.handleNow({ req, params: match.params, query: queryOf(path), caller: { subject: principal.subject }, service: documents.service });
    } catch {
      // A refusal (absent, trashed, another's private document): dispatch answers it with its envelope.
      return false;
    }
    if (!response) return false;
    try {
      sendRouteResponse(res, response);
    } catch (error) {
      // As an answer made the async way that fails to go out (listener below).
      fail(req, res, error);
    }
    return true;
  };

  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const path = requestPath(req.url ?? '/');
    if (answerNow(req, res, path)) return;
    dispatch(req, res, path)
      .then((response) => sendRouteResponse(res, refusalClosing(req, response)))
      .catch((error: unknown) => fail(req, res, error));
  };

  /** A refusal a route returns (the OAuth endpoint's), like one thrown: answered before the body's end, it closes. */
  const refusalClosing = (req: IncomingMessage, response: DocumentResponse): DocumentResponse =>
    response.status < 400 ? response : { ...response, headers: { ...response.headers, ...closeIfBodyUnread(req) } };

  return {
    handles: isDocumentServiceUrl,
    listener,
    addEphemeralToken: async (env, scopes, subject) => (await environment(env)).documents.credentials.addEphemeral(scopes, subject),
    async flushed() {
      const all = await Promise.allSettled(opened.values());
      await Promise.all(all.map((result) => (result.status === 'fulfilled' ? result.value.store.flushed() : undefined)));
    },
    async close() {
      closed = true;
      ready.clear();
      const all = await Promise.allSettled(opened.values());
      await Promise.all(all.map((result) => (result.status === 'fulfilled' ? result.value.store.close() : undefined)));
    },
  };
}

/** A request's URL cut once for both ways of answering it: its path segments, and where they start after `/e/{env}`. */
interface RequestPath {
  readonly url: string;
  /** Where the query starts (`?`), or -1. */
  readonly mark: number;
  readonly segments: readonly string[];
  readonly start: number;
}

function requestPath(url: string): RequestPath {
  const mark = url.indexOf('?');
  const segments = splitPath(mark === -1 ? url : url.slice(0, mark));
  return { url, mark, segments, start: segments[0] === 'e' ? 2 : 0 };
}

const queryOf = ({ url, mark }: RequestPath): URLSearchParams => new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));

async function openEnvironment(env: EnvironmentId, { layout, clock, log }: DocumentApiDeps): Promise<DocumentEnvironment> {
  const store = await openDocumentStore({ dir: join(layout.envDir(env), 'documents'), log: log.child({ env }) });
  return {
    store,
    service: new DocumentService(store, clock),
    credentials: new PlatformCredentials(platformCredentialsFile(layout, env), () => clock.now()),
  };
}

export function platformCredentialsFile(layout: DataDirLayout, env: EnvironmentId): string {
  return join(layout.envDir(env), 'platform-tokens.json');
}

/** 401 without a usable bearer token, 403 without the route's scope. */
async function authenticate(header: string | undefined, credentials: PlatformCredentials, route: DocumentRoute): Promise<Principal> {
  const token = BEARER.exec(header ?? '')?.[1];
  if (!token) throw new HttpError(401, "Authentication required: send 'Authorization: Bearer <platform token or OAuth access token>'.", undefined, { 'www-authenticate': 'Bearer realm="dashcd"' });
  const principal = (await credentials.verifyPlatformToken(token)) ?? (await credentials.verifyAccessToken(token));
  if (!principal) throw new HttpError(401, 'The bearer token is unknown, revoked or expired.', undefined, { 'www-authenticate': 'Bearer realm="dashcd", error="invalid_token"' });
  if (!principal.scopes.includes(route.scope)) {
    throw new HttpError(403, `Forbidden: the token lacks the scope ${route.scope} (${PLATFORM_SCOPE_DESCRIPTIONS[route.scope]}).`);
  }
  return principal;
}

/** node:http invites a body (`100 Continue`) only up to the classic API's limit; documents may be larger. */
function inviteBody(req: IncomingMessage, res: ServerResponse, bodyLimit: number): void {
  const declared = Number(req.headers['content-length']);
  if (req.headers.expect?.toLowerCase() === '100-continue' && declared > bodyLimit && declared <= MAX_UPLOAD_BYTES) res.writeContinue();
}

function asHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreError && error.code === 'STORE_CLOSED') return new HttpError(503, 'The server is shutting down; retry shortly.', undefined, { 'retry-after': '1' });
  return new HttpError(500, 'Internal server error; the server log has the details under this errorRef.');
}
