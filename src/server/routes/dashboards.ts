import type { DashboardId, EnvironmentId } from '../../schema/ids.js';
import { HttpError } from '../http/http-error.js';
import type { RequestContext, Route, RouteResponse } from '../http/route.js';
import type { PreparedDashboard } from '../store/dashboard-document.js';
import type { DashboardStore } from '../store/dashboard-store.js';
import type { DashboardBodyPool } from './dashboard-body-pool.js';
import { parsePathId, type BodyTarget } from './dashboard-validation.js';

export interface DashboardRouteDeps {
  /** The store of an environment the request handler has already resolved. */
  dashboards(env: EnvironmentId): DashboardStore | undefined;
  /** Where bodies are parsed, validated and serialised. */
  readonly bodies: DashboardBodyPool;
}

const BASE = '/api/config/v1/dashboards';
/** Validators and replacements answer 204 without a body. */
const NO_CONTENT: RouteResponse = { status: 204 };

/** The Configuration API v1 dashboard endpoints, plus list and delete as the real service has them. */
export function createDashboardRoutes(deps: DashboardRouteDeps): Route[] {
  const storeOf = (ctx: RequestContext): DashboardStore => {
    const store = deps.dashboards(ctx.env);
    if (!store) throw new HttpError(404, `Environment ${ctx.env} not found`);
    return store;
  };
  const bodyOf = async (ctx: RequestContext, target: BodyTarget): Promise<PreparedDashboard> => deps.bodies.prepare(await ctx.readJsonBytes(), target);
  return [
    { method: 'GET', path: BASE, scope: 'ReadConfig', handle: (ctx) => list(storeOf(ctx), ctx.query) },
    {
      method: 'POST',
      path: BASE,
      scope: 'WriteConfig',
      handle: async (ctx) => create(storeOf(ctx), ctx, await bodyOf(ctx, { mode: 'create' })),
    },
    {
      method: 'POST',
      path: `${BASE}/validator`,
      scope: 'WriteConfig',
      handle: async (ctx) => {
        await bodyOf(ctx, { mode: 'create' });
        return NO_CONTENT;
      },
    },
    { method: 'GET', path: `${BASE}/{id}`, scope: 'ReadConfig', handle: (ctx) => getOne(storeOf(ctx), ctx) },
    {
      method: 'PUT',
      path: `${BASE}/{id}`,
      scope: 'WriteConfig',
      handle: async (ctx) => {
        const store = storeOf(ctx);
        const id = parsePathId(ctx.params['id']);
        return replace(store, ctx, id, await bodyOf(ctx, { mode: 'replace', id }));
      },
    },
    { method: 'DELETE', path: `${BASE}/{id}`, scope: 'WriteConfig', handle: async (ctx) => remove(storeOf(ctx), ctx) },
    {
      method: 'POST',
      path: `${BASE}/{id}/validator`,
      scope: 'WriteConfig',
      handle: async (ctx) => {
        await bodyOf(ctx, { mode: 'replace', id: parsePathId(ctx.params['id']) });
        return NO_CONTENT;
      },
    },
  ];
}

function list(store: DashboardStore, query: URLSearchParams): RouteResponse {
  const owner = query.get('owner') ?? undefined;
  return { status: 200, body: { dashboards: store.list({ owner, tags: query.getAll('tags') }) } };
}

async function create(store: DashboardStore, ctx: RequestContext, body: PreparedDashboard): Promise<RouteResponse> {
  const { id, name } = await store.create(body);
  return { status: 201, body: { id, name }, headers: { location: `/e/${ctx.env}${BASE}/${id}` } };
}

function getOne(store: DashboardStore, ctx: RequestContext): RouteResponse {
  const id = parsePathId(ctx.params['id']);
  const record = store.get(id);
  if (!record) throw new HttpError(404, `Dashboard ${id} not found`);
  return { status: 200, body: record.served.bytes() };
}

async function replace(store: DashboardStore, ctx: RequestContext, id: DashboardId, body: PreparedDashboard): Promise<RouteResponse> {
  const { created, name } = await store.put(id, body);
  if (!created) return NO_CONTENT;
  return { status: 201, body: { id, name }, headers: { location: `/e/${ctx.env}${BASE}/${id}` } };
}

async function remove(store: DashboardStore, ctx: RequestContext): Promise<RouteResponse> {
  const id = parsePathId(ctx.params['id']);
  if (!(await store.remove(id))) throw new HttpError(404, `Dashboard ${id} not found`);
  return NO_CONTENT;
}
