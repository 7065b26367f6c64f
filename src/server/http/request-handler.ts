import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactText, type Logger } from '../../lib/logger.js';
import { EnvironmentId } from '../../schema/ids.js';
import type { Environment, EnvironmentRegistry } from '../environments.js';
import { StoreError } from '../store/store-error.js';
import { ADMIN_PREFIX, type AdminApi, type AdminRoute } from './admin-route.js';
import { authenticate } from './authenticate.js';
import { HttpError } from './http-error.js';
import { readJsonBody } from './read-body.js';
import { sendError, sendRouteResponse } from './respond.js';
import type { Route, RouteResponse } from './route.js';
import { createRouter, splitPath, type RouteMatch } from './router.js';

export interface RequestHandlerDeps {
  readonly environments: EnvironmentRegistry;
  readonly routes: readonly Route[];
  readonly admin?: AdminApi;
  readonly log: Logger;
  readonly bodyLimit?: number;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

interface ParsedTarget {
  readonly path: string;
  readonly segments: readonly string[];
  readonly query: () => URLSearchParams;
}

/**
 * The server's request listener: environment → route → token and scope → handler → one response writer. Every
 * refusal is an HttpError turned into the ErrorEnvelope; anything else thrown is a bug, logged with a request id
 * and answered 500.
 */
export function createRequestHandler(deps: RequestHandlerDeps): RequestListener {
  const router = createRouter(deps.routes);
  const adminRouter = createRouter(deps.admin?.routes ?? []);
  const idPrefix = randomBytes(3).toString('hex');
  let counter = 0;

  const dispatch = async (req: IncomingMessage, res: ServerResponse, target: ParsedTarget): Promise<RouteResponse> => {
    const method = req.method ?? 'GET';
    const readJson = (): Promise<unknown> => readJsonBody(req, { limit: deps.bodyLimit });
    if (target.segments[0] === ADMIN_PREFIX[0] && target.segments[1] === ADMIN_PREFIX[1]) {
      const route = found(adminRouter(method, target.segments.slice(2)), target.path);
      if (!deps.admin) throw notFound(target.path);
      deps.admin.authorize(req.headers);
      return route.route.handle({ params: route.params, query: target.query(), headers: req.headers, readJson });
    }
    const { environment, rest } = await resolveEnvironment(deps.environments, target.segments);
    const { route, params } = found(router(method, rest), target.path);
    authenticate(req.headers, target.query, route.tokenInQuery === true, route.scope, environment.tokens);
    return route.handle(contextFor(req, res, environment, params, target.query, readJson));
  };

  return (req, res) => {
    if (deps.log.isLevelEnabled('debug')) logAccess(deps.log, req, res);
    const target = parseTarget(req.url ?? '/');
    dispatch(req, res, target)
      .then((response) => sendRouteResponse(res, response))
      .catch((error: unknown) => {
        const requestId = `${idPrefix}-${(counter += 1)}`;
        const failure = asHttpError(error, () => {
          deps.log.error({ err: error, requestId, method: req.method, url: redactText(req.url ?? '') }, 'request failed');
        });
        // A body we did not read to the end is never read: closing the connection is cheaper and safer.
        sendError(res, failure, { 'x-request-id': requestId, ...(req.complete ? {} : { connection: 'close' }) });
      });
  };
}

/** Debug-level access log; the URL is redacted because the installer path may carry a token in its query. */
function logAccess(log: Logger, req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  res.once('finish', () => {
    const ms = Math.round((performance.now() - started) * 10) / 10;
    log.debug({ method: req.method, url: redactText(req.url ?? ''), status: res.statusCode, ms }, 'request');
  });
}

function parseTarget(url: string): ParsedTarget {
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const rawQuery = mark === -1 ? '' : url.slice(mark + 1);
  let query: URLSearchParams | undefined;
  return { path, segments: splitPath(path), query: () => (query ??= new URLSearchParams(rawQuery)) };
}

/** `/e/{env}/…` names the environment; any other path belongs to the default environment `local`. */
async function resolveEnvironment(
  environments: EnvironmentRegistry,
  segments: readonly string[],
): Promise<{ environment: Environment; rest: readonly string[] }> {
  const scoped = segments[0] === 'e';
  const raw = scoped ? (segments[1] ?? '') : 'local';
  const parsed = EnvironmentId.safeParse(raw);
  const environment = parsed.success
    ? (environments.get(parsed.data) ?? (await environments.find(parsed.data)))
    : undefined;
  if (!environment) throw new HttpError(404, `Environment ${shorten(raw)} not found`);
  return { environment, rest: scoped ? segments.slice(2) : segments };
}

function found<R extends Route | AdminRoute>(
  match: RouteMatch<R>,
  path: string,
): { route: R; params: Readonly<Record<string, string>> } {
  if (match.kind === 'found') return match;
  if (match.kind === 'method-not-allowed') {
    const allow = match.allow.join(', ');
    throw new HttpError(405, `Method not allowed here; allowed: ${allow}.`, undefined, { allow });
  }
  throw notFound(path);
}

function notFound(path: string): HttpError {
  return new HttpError(404, `No resource at ${shorten(path)}`);
}

function contextFor(
  req: IncomingMessage,
  res: ServerResponse,
  environment: Environment,
  params: Readonly<Record<string, string>>,
  query: () => URLSearchParams,
  readJson: () => Promise<unknown>,
): Parameters<Route['handle']>[0] {
  let controller: AbortController | undefined;
  return {
    env: environment.id,
    params,
    headers: req.headers,
    readJson,
    get query() {
      return query();
    },
    // Made on first use: most handlers never look, and GETs should not pay for it.
    get signal() {
      if (!controller) {
        const made = new AbortController();
        res.once('close', () => {
          if (!res.writableFinished) made.abort(new Error('client closed the connection'));
        });
        controller = made;
      }
      return controller.signal;
    },
  };
}

function asHttpError(error: unknown, logBug: () => void): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreError && error.code === 'STORE_CLOSED') {
    return new HttpError(503, 'The server is shutting down; retry shortly.', undefined, { 'retry-after': '1' });
  }
  logBug();
  return new HttpError(500, 'Internal server error; the server log has the details under this response\'s x-request-id.');
}

/** Raw path pieces are echoed in messages, so they are kept short. */
function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
