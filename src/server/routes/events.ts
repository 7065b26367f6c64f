import type { Clock } from '../../lib/clock.js';
import { EVENT_ID_DIGITS } from '../../schema/events.js';
import type { EnvironmentId } from '../../schema/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { RouteFactory } from '../route-factory.js';
import type { EventStore } from '../feed/event-store.js';
import { openEventStore } from '../feed/open-event-store.js';
import { readFeedPage } from '../feed/feed-page-write.js';
import { parseFeedQuery } from '../feed/feed-query.js';
import { closeDueProblems } from '../feed/problem-expiry.js';
import { pushEvent } from '../feed/push-events.js';
import { HttpError } from '../http/http-error.js';
import { LentBytes } from '../http/respond.js';
import type { RequestContext, Route, RouteResponse } from '../http/route.js';

export interface EventRouteDeps {
  /** The environment's event store; undefined when the environment has none (answered 404). */
  events(env: EnvironmentId): EventStore | undefined;
  readonly clock: Clock;
  /** Overrides every store's own cursor key (each store keeps one in its directory). */
  readonly cursorKey?: Buffer;
  /** Event ids for pushes; random int64 by default. */
  readonly newEventId?: () => string;
  readonly newCorrelationId?: () => string;
  /** A reader that takes none of a page that is waiting for it for this long is cut (default STALLED_READER_MS). */
  readonly stalledReaderMs?: number;
  /** Where a cut reader is reported; silent when absent. */
  readonly log?: Logger;
}

/** As nginx's send_timeout: a page the kernel could not take at once must be taken within this long. */
export const STALLED_READER_MS = 60_000;

/** The events API v1 has `application/json` without a charset (docs/real-service-behaviour.md §4). */
const JSON_HEADERS = { 'content-type': 'application/json' } as const;
const PATH = '/api/v1/events';

/** List, push and get-one for events; all need `DataExport`, as in the real service. */
export function createEventRoutes(deps: EventRouteDeps): Route[] {
  return [
    { method: 'GET', path: PATH, scope: 'DataExport', handle: (ctx) => listEvents(deps, ctx) },
    { method: 'POST', path: PATH, scope: 'DataExport', handle: (ctx) => createEvents(deps, ctx) },
    { method: 'GET', path: `${PATH}/{eventId}`, scope: 'DataExport', handle: (ctx) => getEvent(deps, ctx) },
  ];
}

/**
 * The two server options that give every environment its event store and mount these routes; spread them into
 * startServer's options: `startServer({ ...options, ...eventsServerOptions({ log }) })`.
 */
export function eventsServerOptions({ log, ...routeOptions }: { log: Logger } & Omit<EventRouteDeps, 'events' | 'clock' | 'log'>): {
  openEvents: (env: EnvironmentId, dir: string) => Promise<EventStore>;
  routeFactories: Array<RouteFactory<EventStore>>;
} {
  return {
    openEvents: (env, dir) => openEventStore({ dir, log: log.child({ component: 'events', env }) }),
    routeFactories: [
      (context) =>
        createEventRoutes({ ...routeOptions, log: log.child({ component: 'events' }), events: (env) => context.environments.get(env)?.events, clock: context.clock }),
    ],
  };
}

function storeOf(deps: EventRouteDeps, env: EnvironmentId): EventStore {
  const store = deps.events(env);
  if (!store) throw new HttpError(404, `Environment ${env} has no events feed.`);
  return store;
}

async function listEvents(deps: EventRouteDeps, ctx: RequestContext): Promise<RouteResponse> {
  const store = storeOf(deps, ctx.env);
  const now = deps.clock.now();
  const cursorKey = deps.cursorKey ?? store.cursorKey;
  const request = parseFeedQuery(ctx.query, now, cursorKey, ctx.env);
  await closeDueProblems(store, now);
  const page = await readFeedPage(store, request, { cursorKey, env: ctx.env });
  const stalledMs = deps.stalledReaderMs ?? STALLED_READER_MS;
  const onStalled = (): void => deps.log?.warn({ env: ctx.env, bytes: page.bytes.length, stalledMs }, 'cut a reader that took none of an events page');
  return { status: 200, body: new LentBytes(page.bytes, stalledMs, onStalled, page.giveBack), headers: JSON_HEADERS };
}

async function createEvents(deps: EventRouteDeps, ctx: RequestContext): Promise<RouteResponse> {
  const store = storeOf(deps, ctx.env);
  const body = await ctx.readJson();
  const text = await pushEvent(body, {
    store,
    now: deps.clock.now(),
    ...(deps.newEventId ? { newEventId: deps.newEventId } : {}),
    ...(deps.newCorrelationId ? { newCorrelationId: deps.newCorrelationId } : {}),
  });
  return { status: 200, body: Buffer.from(text), headers: JSON_HEADERS };
}

/** `GET /api/v1/events/{eventId}`: by the encoded id (`<eventId>_<startTime>`) or by the bare event id. */
async function getEvent(deps: EventRouteDeps, ctx: RequestContext): Promise<RouteResponse> {
  const store = storeOf(deps, ctx.env);
  const id = ctx.params['eventId'] ?? '';
  await closeDueProblems(store, deps.clock.now());
  const text = id.includes('_') ? await store.get(id) : EVENT_ID_DIGITS.test(id) ? await store.findByEventId(id) : undefined;
  if (!text) throw new HttpError(404, `Event ${id.slice(0, 100)} not found`);
  return { status: 200, body: Buffer.from(text), headers: JSON_HEADERS };
}
