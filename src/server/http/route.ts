import type { IncomingHttpHeaders } from 'node:http';
import type { EnvironmentId } from '../../schema/ids.js';
import type { Scope } from '../../schema/scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** What a handler sees: the resolved environment, path parameters, the query, and a guarded body reader. */
export interface RequestContext {
  readonly env: EnvironmentId;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** Reads and parses the JSON body with the size, depth and `__proto__` guards; throws HttpError (400/413/415). */
  readJson(): Promise<unknown>;
  /** The same body's bytes with the size and media-type guards only, for a parser elsewhere (a worker thread). */
  readJsonBytes(): Promise<Buffer>;
  readonly signal: AbortSignal;
}

/** A successful answer; `body` is JSON-serialised unless it is already bytes (then `contentType` applies). */
export interface RouteResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Route {
  readonly method: HttpMethod;
  /** Path below `/e/{env}` (or the bare root for the default environment), `{name}` segments are parameters. */
  readonly path: string;
  readonly scope: Scope;
  /** Only the installer download accepts its token in the `Api-Token` query parameter. */
  readonly tokenInQuery?: boolean;
  /** A handler with nothing to wait for answers synchronously: the response goes out without a promise's turn. */
  handle(ctx: RequestContext): RouteResponse | Promise<RouteResponse>;
}
