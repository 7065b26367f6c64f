import { resolve } from 'node:path';
import type { Logger } from '../../lib/logger.js';
import { DEFAULT_ENVIRONMENT } from '../../schema/ids.js';
import { DataDirLockedError } from '../../server/data-dir.js';
import { startServer, type RunningServer } from '../../server/create-server.js';
import { defaultBodyWorkers } from '../../server/routes/dashboard-body-pool.js';
import { SERVE_HOT_BYTES } from '../../server/store/served-bytes.js';
import { serverNodeOptions } from '../../server/server-node-options.js';
import type { EventStore } from '../../server/feed/event-store.js';
import { startEventSimulator } from '../../server/feed/simulator.js';
import { eventsServerOptions } from '../../server/routes/events.js';
import { booleanFlag, defineCommand, stringFlag } from '../command.js';
import { dataFlag } from '../common-flags.js';
import { intFlag } from '../int-flag.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { createConsoleHandler } from '../../console/console-handler.js';
import { consoleTokens } from '../../console/console-tokens.js';
import { serveConsoleSource } from '../serve-console.js';
import type { IncomingMessage, ServerResponse } from 'node:http';

const SERVE_CACHE_MB = SERVE_HOT_BYTES / (1024 * 1024);

export const serveCommand = defineCommand({
  path: ['serve'],
  summary: 'Run the embedded API (dashboards, events feed, agent installer) over a data dir',
  description:
    'Serves every environment of the data dir under /e/<env>/ (paths without that prefix go to "local"), and a ' +
    'read-only console at /ui (live dashboards and events; on a non-loopback --host it asks for a ReadConfig token). One process ' +
    'owns a data dir at a time. SIGINT/SIGTERM stop it gracefully: requests in flight, writes included, finish first.\n' +
    'It runs as a child process started with the Node options a server needs (V8\'s thread pool sized to the cores, see\n' +
    'docs/embedded-api.md); started with --v8-pool-size set (node --v8-pool-size=N dist/main.js serve) or\n' +
    'with --inspect, it runs in the process started.',
  flags: {
    host: { type: 'string', description: 'Address to listen on', default: '127.0.0.1', valueName: 'host' },
    port: { type: 'string', description: 'Port to listen on (0 picks a free one)', default: '8080', valueName: 'n' },
    data: dataFlag,
    'simulate-events': { type: 'boolean', description: 'Write a synthetic event stream into the local events feed' },
    'cache-mb': {
      type: 'string',
      description: 'Memory per environment for dashboards kept ready to send uncompressed (the rest are held deflated and inflated per read)',
      default: String(SERVE_CACHE_MB),
      valueName: 'n',
    },
  },
  examples: [
    'dashcd serve',
    'dashcd serve --port 9090 --data /var/lib/dashcd',
    'dashcd serve --simulate-events',
    'dashcd serve --cache-mb 64',
    'curl -H "Authorization: Api-Token $DT_API_TOKEN" http://127.0.0.1:8080/e/local/api/config/v1/dashboards',
  ],
  async run({ flags }, io) {
    const host = stringFlag(flags, 'host') ?? '127.0.0.1';
    const port = parsePort(stringFlag(flags, 'port') ?? '8080');
    const dataDir = resolve(io.cwd, stringFlag(flags, 'data') ?? '.dashcd');
    const hotBytes = intFlag(flags, 'cache-mb', SERVE_CACHE_MB) * 1024 * 1024;
    const relaunched = io.relaunch?.(serverNodeOptions());
    if (relaunched) return relaunched;
    // The console reads the server it is mounted on: bound once the server exists (nothing is served before).
    let consoleHandler: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
    const server = await start({ dataDir, host, port, log: io.log, hotBytes }, (req, res) => consoleHandler?.(req, res) ?? false);
    consoleHandler = createConsoleHandler(serveConsoleSource(server, io.log), { host, tokens: consoleTokens(server.environments) });
    const simulator = booleanFlag(flags, 'simulate-events') ? simulate(server, io.log, io.signal) : undefined;
    io.stdout.write(`dashcd serving ${server.envUrl()} (base ${server.url}, data dir ${dataDir}; console ${server.url}/ui); Ctrl-C stops it\n`);
    await aborted(io.signal);
    io.log.info({ reason: String(io.signal.reason) }, 'shutting down');
    await simulator?.stop();
    await server.close();
    return ExitCode.Success;
  },
});

async function start(
  { dataDir, host, port, log, hotBytes }: { dataDir: string; host: string; port: number; log: Logger; hotBytes: number },
  extraHandler: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<RunningServer<EventStore>> {
  try {
    return await startServer({ dataDir, host, port, log, extraHandler, hotBytes, bodyWorkers: defaultBodyWorkers(), ...eventsServerOptions({ log }) });
  } catch (error) {
    // Exit 4, as every other command that finds its data dir owned by another dashcd.
    if (error instanceof DataDirLockedError) throw new CliError(error.message, ExitCode.TargetUnavailable, { cause: error });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new CliError(`cannot listen on ${host}:${port} (${code}) — choose another --host/--port`, ExitCode.Unexpected, { cause: error });
    }
    throw error;
  }
}

function simulate(server: RunningServer<EventStore>, log: Logger, signal: AbortSignal): { stop(): Promise<void> } | undefined {
  const store = server.environments.get(DEFAULT_ENVIRONMENT)?.events;
  if (!store) return undefined;
  log.info({ env: DEFAULT_ENVIRONMENT }, 'simulating events');
  return startEventSimulator({ store, log: log.child({ component: 'simulator' }), signal });
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new UsageError(`--port must be a number from 0 to 65535, not '${raw}'`);
  return port;
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
