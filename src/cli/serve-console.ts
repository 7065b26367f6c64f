import { parseFeedPage, cursorParams, windowParams } from '../archive/feed-page-parse.js';
import { createApiClient } from '../client/api-client.js';
import type { ConsoleEvent, ConsoleSource } from '../console/console-data.js';
import { consoleEvent } from '../daemon/daemon-console.js';
import type { Logger } from '../lib/logger.js';
import { parseDashboardId } from '../schema/ids.js';
import type { RunningServer } from '../server/create-server.js';
import type { EventStore } from '../server/feed/event-store.js';

/** At most this many feed pages per events page of the console: a busy day must not hold a request for long. */
const MAX_PAGES = 20;

/**
 * `serve`'s console data: no desired state, so the live dashboards of each environment of the data dir (no sync
 * status) and its events feed, read through the real client with a token made for this read only.
 */
export function serveConsoleSource(server: RunningServer<EventStore>, log: Logger): ConsoleSource {
  // One feed-reading token per environment for the life of the server, not one per page view.
  const tokens = new Map<string, string>();
  return {
    kind: 'live',
    environments: () => Promise.resolve(server.environments.ids().map((name) => ({ name, target: server.envUrl(name) }))),
    dashboards(env) {
      const environment = server.environments.lookup(env);
      if (!environment) return Promise.resolve(undefined);
      const { dashboards } = environment;
      const entries = dashboards.list().map((stub) => {
        const id = parseDashboardId(stub.id);
        const record = id === undefined ? undefined : dashboards.get(id);
        return { id: stub.id, name: stub.name ?? stub.id, body: record ? (JSON.parse(record.served.bytes().toString('utf8')) as unknown) : undefined };
      });
      return Promise.resolve({ kind: 'live' as const, dashboards: entries });
    },
    async events(env, window) {
      const environment = server.environments.lookup(env);
      if (!environment?.events) return [];
      const token = tokens.get(env) ?? environment.tokens.addEphemeral(['DataExport'], 'console');
      tokens.set(env, token);
      const client = createApiClient({ baseUrl: server.envUrl(environment.id), token, log: log.child({ component: 'console' }) });
      try {
        return await feedEvents((query) => client.events.fetchPageText(query), window);
      } finally {
        await client.close();
      }
    },
  };
}

async function feedEvents(fetchPage: (query: URLSearchParams) => Promise<string>, window: { from: number; to: number }): Promise<ConsoleEvent[]> {
  const events: ConsoleEvent[] = [];
  let query: URLSearchParams | undefined = windowParams({ from: window.from, to: window.to - 1 });
  for (let pages = 0; query && pages < MAX_PAGES; pages++) {
    const page = parseFeedPage(await fetchPage(query));
    events.push(...page.events.map((e) => consoleEvent(e.event)));
    query = page.nextCursor === undefined ? undefined : cursorParams(page.nextCursor);
  }
  return events;
}
