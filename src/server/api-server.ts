import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../schema/ids.js';
import { SESSION_SCOPES, sessionCredentials, startServer, type RunningServer, type SessionCredentials } from './create-server.js';
import type { EventStore } from './feed/event-store.js';
import { startEventSimulator } from './feed/simulator.js';
import { eventsServerOptions } from './routes/events.js';

export interface ApiServer {
  readonly server: RunningServer<EventStore>;
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  /** The default environment's root, e.g. `http://127.0.0.1:8080/e/local`. */
  readonly envUrl: string;
  /** An in-memory token with every scope, valid until this process stops; with simulateEvents, `local` gets events from then on. */
  createSessionToken(): string;
  /**
   * Another environment of the store (`/e/<env>`, created if new) with a token like createSessionToken's and a platform
   * token for its Document service; with simulateEvents it gets its own simulated event stream.
   */
  session(env: EnvironmentId): Promise<SessionCredentials & { envUrl: string }>;
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
  /** False: `local` is opened only if it is already on disk (a daemon whose dashcd.yaml declares environments). */
  openDefault?: boolean;
}): Promise<ApiServer> {
  const { log } = options;
  const server = await startServer({
    dataDir: options.dataDir,
    host: options.host,
    port: options.port,
    log,
    ...eventsServerOptions({ log }),
    ...(options.extraHandler ? { extraHandler: options.extraHandler } : {}),
    ...(options.openDefault === false ? { openDefault: false } : {}),
  });
  const local = server.environments.get(DEFAULT_ENVIRONMENT);
  const stopSimulator = new AbortController();
  const simulators: { stop(): Promise<void> }[] = [];
  const simulated = new Set<EnvironmentId>();
  const simulate = (env: EnvironmentId, events: EventStore | undefined): void => {
    if (!options.simulateEvents || !events || simulated.has(env)) return;
    simulated.add(env);
    simulators.push(startEventSimulator({ store: events, environment: env, log: log.child({ component: 'simulator', env }), signal: stopSimulator.signal }));
  };
  return {
    server,
    url: server.url,
    envUrl: server.envUrl(DEFAULT_ENVIRONMENT),
    createSessionToken: () => {
      if (!local) throw new Error('the default environment is not open');
      // Simulated only once something uses it: with environments declared the daemon never does.
      simulate(DEFAULT_ENVIRONMENT, local.events);
      return local.tokens.addEphemeral([...SESSION_SCOPES], 'session');
    },
    session: async (env) => {
      const credentials = await sessionCredentials(server, env, 'session');
      simulate(env, server.environments.get(env)?.events);
      return { envUrl: server.envUrl(env), ...credentials };
    },
    close: async () => {
      stopSimulator.abort();
      await Promise.all(simulators.map((s) => s.stop()));
      await server.close();
    },
  };
}
