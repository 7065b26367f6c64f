import type { IncomingMessage, ServerResponse } from 'node:http';
import type { CommandIo } from './command.js';
import type { Logger } from '../lib/logger.js';
import { errorMessage } from '../lib/error-message.js';
import { EnvironmentId } from '../schema/ids.js';
import { DataDirLockedError } from '../server/data-dir.js';
import { startServer, type RunningServer } from '../server/create-server.js';
import { defaultBodyWorkers } from '../server/server-node-options.js';
import type { EventStore } from '../server/feed/event-store.js';
import { startEventSimulator } from '../server/feed/simulator.js';
import { eventsServerOptions } from '../server/routes/events.js';
import { CliError, ExitCode } from './exit-codes.js';
import { isConsoleRequest } from '../console/console-path.js';
import { listenFailure } from './listen-failure.js';
import { unlessLocked, untilSettled } from './local-store.js';

export interface ServeOptions {
  readonly dataDir: string;
  readonly host: string;
  readonly port: number;
  readonly hotBytes: number;
  readonly simulateEvents: boolean;
  /** The data dir is the project's own `.dashcd` (no --data): its dashcd.yaml's embedded environments are this store's. */
  readonly projectStore: boolean;
}

/**
 * What `dashcd serve` does once it runs in the process that serves: kept out of the command's module so that a
 * launcher (see relaunch.ts) starts its child without loading the server first (that load was most of its second).
 */
export async function runServe(options: ServeOptions, io: CommandIo): Promise<number> {
  let consoleHandler: Handler | undefined;
  let consoleLoaded: Promise<Handler> | undefined;
  // The console is loaded once the server answers (its modules were a sixth of start-up): a console request that
  // comes sooner waits for it, every other request is the API's at once.
  const server = await start(options, io, (req, res) => {
    if (consoleHandler) return consoleHandler(req, res);
    if (!consoleLoaded || !isConsoleRequest(req)) return false;
    consoleLoaded.then(
      (handle) => handle(req, res),
      () => res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8' }).end('the console could not be loaded\n'),
    );
    return true;
  });
  consoleLoaded = loadConsole(server, options.host, io.log);
  consoleLoaded.then((handle) => (consoleHandler = handle), (error: unknown) => io.log.error({ err: error }, 'the console could not be loaded'));
  const simulator = options.simulateEvents ? await simulate(server, options.projectStore, io) : undefined;
  io.stdout.write(`dashcd serving ${server.envUrl()} (base ${server.url}, data dir ${options.dataDir}; console ${server.url}/ui); Ctrl-C stops it\n`);
  await aborted(io.signal);
  io.log.info({ reason: errorMessage(io.signal.reason) }, 'shutting down');
  await simulator?.stop();
  await server.close();
  return ExitCode.Success;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** The console reads the server it is mounted on, so it is made once the server exists. */
async function loadConsole(server: RunningServer<EventStore>, host: string, log: Logger): Promise<Handler> {
  const [{ createConsoleHandler }, { consoleTokens }, { serveConsoleSource }] = await Promise.all([
    import('../console/console-handler.js'),
    import('../console/console-tokens.js'),
    import('./serve-console.js'),
  ]);
  return createConsoleHandler(serveConsoleSource(server, log), { host, tokens: consoleTokens(server.environments) });
}

async function start({ dataDir, host, port, hotBytes }: ServeOptions, io: CommandIo, extraHandler: Handler): Promise<RunningServer<EventStore>> {
  const log = io.log;
  try {
    // A serve or daemon up on the data dir is the one owner: refused. Anything else holding it (a plan's or token
    // command's own moment with it, an owner still starting) ends soon: waited for, as commands wait for each other.
    return await untilSettled(dataDir, io, async (owner) => {
      if (owner?.url && owner.lasting) throw new DataDirLockedError(dataDir, owner);
      if (owner !== undefined) return undefined;
      return startServer({ dataDir, host, port, log, extraHandler, hotBytes, bodyWorkers: defaultBodyWorkers(), ...eventsServerOptions({ log }) }).catch(unlessLocked);
    });
  } catch (error) {
    // A data dir owned by another dashcd is exit 4 in run.ts, as for every command.
    const why = listenFailure(error);
    if (why) throw new CliError(`cannot listen on ${host}:${port} (${why}) — choose another --host/--port`, ExitCode.Unexpected, { cause: error });
    throw error;
  }
}

/**
 * A simulated event stream for every environment the data dir holds at start and, in the project's own store, each
 * one its dashcd.yaml declares for an embedded store (opened now): in a project with environments, `local` alone was
 * simulated, which no command there reads (`events pull --env dev` found nothing, and `--env local` is refused).
 * A store named with --data is not the project's: its environments are not made for the project's names.
 */
async function simulate(server: RunningServer<EventStore>, projectStore: boolean, io: Pick<CommandIo, 'log' | 'signal' | 'cwd'>): Promise<{ stop(): Promise<void> }> {
  // Loaded only with the flag: reading dashcd.yaml takes its parser, which serve's start does without.
  const { projectEmbeddedEnvironments } = await import('./project-environments.js');
  const declared = (projectStore ? await projectEmbeddedEnvironments(io.cwd) : []).flatMap((name) => {
    const id = EnvironmentId.safeParse(name);
    return id.success ? [id.data] : [];
  });
  const simulators: { stop(): Promise<void> }[] = [];
  for (const env of new Set([...server.environments.ids(), ...declared])) {
    const store = (await server.environments.ensure(env)).events;
    if (!store) continue;
    simulators.push(startEventSimulator({ store, environment: env, log: io.log.child({ component: 'simulator', env }), signal: io.signal }));
  }
  return { stop: async () => void (await Promise.all(simulators.map((simulator) => simulator.stop()))) };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
