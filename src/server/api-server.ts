import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { DEFAULT_ENVIRONMENT } from '../schema/ids.js';
import { startServer, type RunningServer } from './create-server.js';
import type { EventStore } from './feed/event-store.js';
import { startEventSimulator } from './feed/simulator.js';
import { eventsServerOptions } from './routes/events.js';

export interface ApiServer {
  readonly server: RunningServer<EventStore>;
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The default environment's root, e.g. `http://127.0.0.1:8080/e/local`. */
  readonly envUrl: string;
  /** An in-memory token with every scope, valid until this process stops. */
  createSessionToken(): string;
  /** Stops the simulator, then the server (in-flight writes finish). */
  close(): Promise<void>;
}

/**
 * The whole embedded API — dashboards, events feed, installer — with the optional event simulator: what `serve`
 * and the daemon run.
 */
export async function startApiServer(options: {
  dataDir: string;
  host: string;
  port: number;
  log: Logger;
  simulateEvents: boolean;
  extraHandler?: (req: IncomingMessage, res: ServerResponse) => boolean;
}): Promise<ApiServer> {
  const { log } = options;
  const server = await startServer({
    dataDir: options.dataDir,
    host: options.host,
    port: options.port,
    log,
    ...eventsServerOptions({ log }),
    ...(options.extraHandler ? { extraHandler: options.extraHandler } : {}),
  });
  const local = server.environments.get(DEFAULT_ENVIRONMENT);
  const stopSimulator = new AbortController();
  const simulator =
    options.simulateEvents && local?.events
      ? startEventSimulator({ store: local.events, log: log.child({ component: 'simulator' }), signal: stopSimulator.signal })
      : undefined;
  if (simulator) log.info({ env: DEFAULT_ENVIRONMENT }, 'simulating events');
  return {
    server,
    url: server.url,
    envUrl: server.envUrl(DEFAULT_ENVIRONMENT),
    createSessionToken: () => {
      if (!local) throw new Error('the default environment is not open');
      return local.tokens.addEphemeral(['ReadConfig', 'WriteConfig', 'DataExport', 'InstallerDownload'], 'session');
    },
    close: async () => {
      stopSimulator.abort();
      await simulator?.stop();
      await server.close();
    },
  };
}
