import { SERVE_HOT_BYTES } from '../../server/store/served-bytes.js';
import { booleanFlag, defineCommand, stringFlag } from '../command.js';
import { dataFlag } from '../common-flags.js';
import { dataDirOf } from '../data-dir-default.js';
import { intFlag } from '../int-flag.js';
import { UsageError } from '../exit-codes.js';
import { refuseZonedHost } from '../listen-failure.js';

const SERVE_CACHE_MB = SERVE_HOT_BYTES / (1024 * 1024);

export const serveCommand = defineCommand({
  path: ['serve'],
  summary: 'Run the embedded API (dashboards, events feed, agent installer) over a data dir',
  description:
    'Serves every environment of the data dir under /e/<env>/ (paths without that prefix go to "local"), and a ' +
    'read-only console at /ui (live dashboards and events; on a non-loopback --host it asks for a ReadConfig token). One process ' +
    'owns a data dir at a time. SIGINT/SIGTERM stop it gracefully: requests in flight, writes included, finish first.\n\n' +
    'It runs as a child process started with the Node options a server needs (V8\'s thread pool sized to the cores, see\n' +
    'docs/embedded-api.md); started with --v8-pool-size set (`node --v8-pool-size=N dist/bundle/main.js serve`) or\n' +
    'with --inspect, it runs in the process started.',
  flags: {
    host: { type: 'string', description: 'Address to listen on', default: '127.0.0.1', valueName: 'host' },
    port: { type: 'string', description: 'Port to listen on (0 picks a free one)', default: '8080', valueName: 'n' },
    data: dataFlag,
    'simulate-events': { type: 'boolean', description: "Write a synthetic event stream into each environment's events feed (the data dir's, and without --data the embedded ones dashcd.yaml declares)" },
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
    refuseZonedHost(host, '--host');
    const port = parsePort(stringFlag(flags, 'port') ?? '8080');
    const dataDir = await dataDirOf(stringFlag(flags, 'data'), io.cwd);
    const hotBytes = intFlag(flags, 'cache-mb', SERVE_CACHE_MB) * 1024 * 1024;
    const { runServe } = await import('../serve-server.js');
    // The project's own store, named by --data or not (`--data .dashcd`).
    const projectStore = dataDir === (await dataDirOf(undefined, io.cwd));
    return runServe({ dataDir, host, port, hotBytes, simulateEvents: booleanFlag(flags, 'simulate-events'), projectStore }, io);
  },
});

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new UsageError(`--port must be a number from 0 to 65535, not '${raw}'`);
  return port;
}
