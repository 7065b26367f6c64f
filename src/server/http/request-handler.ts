import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '../../lib/clock.js';
import { redactText, type Logger } from '../../lib/logger.js';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../../schema/ids.js';
import type { Environment, EnvironmentRegistry } from '../environments.js';
import { StoreError } from '../store/store-error.js';
import { ADMIN_PREFIX, type AdminApi, type AdminRoute } from './admin-route.js';
import { authenticate } from './authenticate.js';
import { exhaustionResponder } from './exhausted-resource.js';
import { HttpError } from './http-error.js';
import { readJsonBody, readJsonBytes } from './read-body.js';
import { sendError, sendRouteResponse } from './respond.js';
import type { RequestContext, Route, RouteResponse } from './route.js';
import { createRouter, splitPath, type RouteMatch } from './router.js';
import { excerpt } from '../../lib/quoted.js';

export interface RequestHandlerDeps {
  readonly environments: EnvironmentRegistry;
  readonly routes: readonly Route[];
  readonly admin?: AdminApi;
  readonly log: Logger;
  readonly bodyLimit?: number;
  readonly clock?: Pick<Clock, 'now'>;
}

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

interface ParsedTarget {
  readonly path: string;
  readonly segments: readonly string[];
  readonly rawQuery: string;
}

/**
 * The server's request listener: environment → route → token and scope → handler → one response writer. Every
 * refusal is an HttpError turned into the ErrorEnvelope; anything else thrown is a bug, logged with a request id
 * and answered 500. Everything up to the handler runs synchronously when the environment is already open, and a
 * handler with nothing to wait for (GET of a dashboard) answers in the same turn: no promise, no microtask.
 */
export function createRequestHandler(deps: RequestHandlerDeps): RequestListener {
  const router = createRouter(deps.routes);
  const adminRouter = createRouter(deps.admin?.routes ?? []);
  const idPrefix = randomBytes(3).toString('hex');
  let counter = 0;
  const exhausted = exhaustionResponder(deps.log, deps.clock ?? systemClock);

  const inEnvironment = (req: IncomingMessage, res: ServerResponse, target: ParsedTarget, environment: Environment) => {
    const rest = target.segments[0] === 'e' ? 2 : 0;
    const { route, params } = found(router(req.method ?? 'GET', target.segments, rest), target.path);
    const ctx = new HandlerContext(req, res, target.rawQuery, deps.bodyLimit, environment.id, params);
    authenticate(req.headers, ctx, route.tokenInQuery === true, route.scope, environment.tokens);
    return route.handle(ctx);
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse, target: ParsedTarget): RouteResponse | Promise<RouteResponse> => {
    if (target.segments[0] === ADMIN_PREFIX[0] && target.segments[1] === ADMIN_PREFIX[1]) {
      const route = found(adminRouter(req.method ?? 'GET', target.segments, 2), target.path);
      if (!deps.admin) throw notFound(target.path);
      deps.admin.authorize(req.headers);
      return route.route.handle(new HandlerContext(req, res, target.rawQuery, deps.bodyLimit, DEFAULT_ENVIRONMENT, route.params));
    }
    // The root names no resource in any environment: said before looking `local` up, which may not be open.
    if (target.segments.length === 0) throw notFound(target.path);
    const raw = environmentSegment(target.segments);
    const open = deps.environments.lookup(raw);
    if (open) return inEnvironment(req, res, target, open);
    return findEnvironment(deps.environments, raw).then((environment) => inEnvironment(req, res, target, environment));
  };

  const fail = (req: IncomingMessage, res: ServerResponse, error: unknown): void => {
    const requestId = `${idPrefix}-${(counter += 1)}`;
    const failure = exhausted(error) ?? asHttpError(error, () => {
      deps.log.error({ err: error, requestId, method: req.method, url: redactText(req.url ?? '') }, 'request failed');
    });
    // Headers already out: an envelope can no longer be sent, and an answer left open would hang its client.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendError(res, failure, { 'x-request-id': requestId });
  };

  return (req, res) => {
    if (deps.log.isLevelEnabled('debug')) logAccess(deps.log, req, res);
    let answer: RouteResponse | Promise<RouteResponse>;
    try {
      answer = dispatch(req, res, parseTarget(req.url ?? '/'));
      if (!(answer instanceof Promise)) {
        sendRouteResponse(res, answer);
        return;
      }
    } catch (error) {
      fail(req, res, error);
      return;
    }
    answer.then(
      (response) => {
        try {
          sendRouteResponse(res, response);
        } catch (error) {
          fail(req, res, error);
        }
      },
      (error: unknown) => fail(req, res, error),
    );
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
  return { path, segments: splitPath(path), rawQuery: mark === -1 ? '' : url.slice(mark + 1) };
}

/** `/e/{env}/…` names the environment; any other path belongs to the default environment `local`. */
function environmentSegment(segments: readonly string[]): string {
  return segments[0] === 'e' ? (segments[1] ?? '') : DEFAULT_ENVIRONMENT;
}

/** An environment that is not open yet: validated, then looked for on disk. */
async function findEnvironment(environments: EnvironmentRegistry, raw: string): Promise<Environment> {
  const parsed = EnvironmentId.safeParse(raw);
  const environment = parsed.success ? await environments.find(parsed.data) : undefined;
  if (!environment) throw new HttpError(404, `Environment ${excerpt(raw)} not found`);
  return environment;
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
  // The server's root is where someone exploring starts: say where the API is.
  if (path === '/') return new HttpError(404, 'No resource at /: the dashboards API is at /e/{environment}/api/config/v1/dashboards');
  return new HttpError(404, `No resource at ${excerpt(path)}`);
}

/**
 * What a handler (or admin handler) sees. A class rather than an object literal: the query, headers and abort
 * signal are made on first use, and most GETs never ask for them.
 */
class HandlerContext implements RequestContext {
  private parsedQuery: URLSearchParams | undefined;
  private controller: AbortController | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly rawQuery: string,
    private readonly bodyLimit: number | undefined,
    readonly env: EnvironmentId,
    readonly params: Readonly<Record<string, string>>,
  ) {}

  get headers(): IncomingHttpHeaders {
    return this.req.headers;
  }

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  readJson(): Promise<unknown> {
    return readJsonBody(this.req, { limit: this.bodyLimit });
  }

  readJsonBytes(): Promise<Buffer> {
    return readJsonBytes(this.req, this.bodyLimit);
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const made = new AbortController();
      const res = this.res;
      res.once('close', () => {
        if (!res.writableFinished) made.abort(new Error('client closed the connection'));
      });
      this.controller = made;
    }
    return this.controller.signal;
  }
}

function asHttpError(error: unknown, logBug: () => void): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof StoreError && error.code === 'STORE_CLOSED') {
    return new HttpError(503, 'The server is shutting down; retry shortly.', undefined, { 'retry-after': '1' });
  }
  logBug();
  return new HttpError(500, 'Internal server error; the server log has the details under this response\'s x-request-id.');
}
