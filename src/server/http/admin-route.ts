import type { IncomingHttpHeaders } from 'node:http';
import type { HttpMethod, RouteResponse } from './route.js';

/** Operator routes under `/_dashcd/admin/`: authorised by the data dir owner's admin key, not by API tokens. */
export interface AdminRoute {
  readonly method: HttpMethod;
  /** Path below `/_dashcd/admin`, `{name}` segments are parameters. */
  readonly path: string;
  handle(ctx: AdminContext): Promise<RouteResponse>;
}

export interface AdminContext {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readJson(): Promise<unknown>;
}

/** The admin routes plus their gate, which throws HttpError 401 when the request does not carry the admin key. */
export interface AdminApi {
  readonly routes: readonly AdminRoute[];
  authorize(headers: IncomingHttpHeaders): void;
}

export const ADMIN_PREFIX = ['_dashcd', 'admin'] as const;
