import { parseFeedPage, cursorParams, windowParams } from '../archive/feed-page-parse.js';
import { createApiClient, withDocuments, type ApiClient } from '../client/api-client.js';
import { createDocumentsClient } from '../client/documents-api.js';
import { MAX_CONSOLE_EVENTS, type ConsoleEvent, type ConsoleEvents, type ConsoleSource, type EventFilter, type LiveEntry } from '../console/console-data.js';
import { eventMatches, filterKey } from '../console/event-filter.js';
import { consoleEvent } from '../daemon/daemon-console.js';
import { KINDS } from '../kinds/kinds.js';
import { sharedWhileRunning } from '../lib/in-flight.js';
import type { Logger } from '../lib/logger.js';
import { parseDashboardId } from '../schema/ids.js';
import type { RunningServer } from '../server/create-server.js';
import type { EventStore } from '../server/feed/event-store.js';
import type { DashboardStore } from '../server/store/dashboard-store.js';
import type { EnvironmentId } from '../schema/ids.js';
import { EVENTS_PAGE_SIZE } from '../schema/events.js';

/** At most this many feed pages per events page of the console: a busy day must not hold a request for long. */
const MAX_PAGES = Math.ceil(MAX_CONSOLE_EVENTS / EVENTS_PAGE_SIZE);
/** The document types the console lists beside classic dashboards (launchpads and other types are not dashboards). */
const LISTED_TYPES = "type == 'dashboard' or type == 'notebook'";
/**
 * Who the console is to the Document service: an owner of nothing. A console reader holds a classic token (or none,
 * on loopback) and so is nobody's owner: the service then shows it public documents only, never another owner's
 * private ones.
 */
const CONSOLE_SUBJECT = 'dashcd-console';

/** The console's own credentials for one environment: the feed (DataExport) and reading documents, nothing else. */
interface ConsoleSession {
  token: string;
  platformToken: string;
}

/**
 * `serve`'s console data: no desired state, so the live items of each environment of the data dir (no sync status)
 * — classic dashboards from the store, platform dashboards and notebooks from its Document service — and its events
 * feed; the documents and the feed read through the real clients with credentials made for these reads only.
 */
export function serveConsoleSource(server: RunningServer<EventStore>, log: Logger): ConsoleSource {
  const shared = sharedWhileRunning();
  // One session per environment for the life of the server, not one per page view.
  const sessions = new Map<string, Promise<ConsoleSession>>();
  const sessionOf = (env: EnvironmentId): Promise<ConsoleSession> => {
    const known = sessions.get(env);
    if (known) return known;
    const made = consoleSession(server, env);
    sessions.set(env, made);
    return made;
  };
  /** A client of `env` for one page view, closed after it. */
  const withClient = async <T>(env: EnvironmentId, read: (client: ApiClient) => Promise<T>): Promise<T> => {
    const { token, platformToken } = await sessionOf(env);
    const baseUrl = server.envUrl(env);
    const clientLog = log.child({ component: 'console' });
    const documents = createDocumentsClient({ platformUrl: baseUrl, credential: { kind: 'platform-token', token: platformToken }, log: clientLog });
    const client = withDocuments(createApiClient({ baseUrl, token, log: clientLog }), documents);
    try {
      return await read(client);
    } finally {
      await client.close();
    }
  };
  return {
    kind: 'live',
    environments: () => Promise.resolve(server.environments.ids().map((name) => ({ name, target: server.envUrl(name) }))),
    // Every page of an environment lists all of its dashboards and documents (names and kinds; a body only for the
    // page that draws it), and views at the same time share one listing. Each view parsed every body once: forty at
    // once over 3,000 dashboards each held ~75 MB and ran the server out of memory, and one after another they kept
    // its thread busy (no token is needed on loopback).
    dashboards: (env) =>
      shared(`dashboards ${env}`, async () => {
        const environment = server.environments.lookup(env);
        if (!environment) return undefined;
        const { dashboards } = environment;
        // Names only: a body is parsed when the page of its dashboard draws it.
        const entries = dashboards.list().map((stub): LiveEntry => ({ id: stub.id, name: stub.name ?? stub.id, body: async () => classicBody(dashboards, stub.id) }));
        // A document's body, up to 50 MiB, is fetched once for the views that ask for it at the same time.
        const documents = await withClient(environment.id, (client) => liveDocuments(client, (id, read) => shared(`document ${env} ${id}`, () => withClient(environment.id, read))));
        return { kind: 'live' as const, dashboards: [...entries, ...documents] };
      }),
    events: (env, window, filter) =>
      shared(`events ${env} ${window.from} ${window.to} ${filterKey(filter)}`, async () => {
        const environment = server.environments.lookup(env);
        if (!environment?.events) return { events: [], cut: false, types: [] };
        return withClient(environment.id, (client) => feedEvents((query) => client.events.fetchPageText(query), window, filter));
      }),
  };
}

async function consoleSession(server: RunningServer<EventStore>, env: EnvironmentId): Promise<ConsoleSession> {
  const environment = await server.environments.ensure(env);
  return { token: environment.tokens.addEphemeral(['DataExport'], 'console'), platformToken: await server.addPlatformToken(env, ['document:documents:read'], CONSOLE_SUBJECT) };
}

/** A classic dashboard as stored now, or undefined when it is gone since the listing. */
function classicBody(dashboards: DashboardStore, rawId: string): unknown {
  const id = parseDashboardId(rawId);
  const record = id === undefined ? undefined : dashboards.get(id);
  return record ? (JSON.parse(record.served.bytes().toString('utf8')) as unknown) : undefined;
}

/**
 * The platform dashboards and notebooks the console may show, their kinds from the listing. A body is fetched, in
 * the file form its picture is drawn from, only for the page that draws it; one whose content the file form cannot
 * hold (not a JSON object) has no picture rather than failing the page.
 */
async function liveDocuments(client: ApiClient, withClient: <T>(id: string, read: (client: ApiClient) => Promise<T>) => Promise<T>): Promise<LiveEntry[]> {
  const listed = await (client.documents?.list({ filter: LISTED_TYPES }) ?? []);
  return listed.map((d) => ({
    id: d.id,
    name: d.name,
    documentKind: d.type === 'notebook' ? 'notebook' : 'dashboard',
    body: () => withClient(d.id, (reader) => KINDS.document.live(reader).getText(d.id)).then((text) => text?.parse(), () => undefined),
  }));
}

/**
 * The window's newest events passing the filter, from its newest MAX_PAGES pages (the feed pages newest first): a
 * busy day must not hold a request for long, so a rare type older than those pages is left to `events query`.
 */
async function feedEvents(fetchPage: (query: URLSearchParams) => Promise<string>, window: { from: number; to: number }, filter: EventFilter): Promise<ConsoleEvents> {
  const events: ConsoleEvent[] = [];
  const types = new Set<string>();
  let query: URLSearchParams | undefined = windowParams({ from: window.from, to: window.to - 1 });
  for (let pages = 0; query && pages < MAX_PAGES; pages++) {
    const page = parseFeedPage(await fetchPage(query));
    for (const { event } of page.events) {
      const shown = consoleEvent(event);
      types.add(shown.type);
      if (eventMatches(shown, filter)) events.push(shown);
    }
    query = page.nextCursor === undefined ? undefined : cursorParams(page.nextCursor);
  }
  return { events, cut: query !== undefined, types: [...types] };
}
