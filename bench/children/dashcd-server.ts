import { startServer } from '../../src/server/create-server.js';
import { defaultBodyWorkers } from '../../src/server/server-node-options.js';
import { SERVE_HOT_BYTES } from '../../src/server/store/served-bytes.js';
import { eventsServerOptions } from '../../src/server/routes/events.js';
import { silentLogger } from '../../src/lib/logger.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import type { ServedBaseline } from '../baselines/bare-http.js';

/**
 * The embedded server as `dashcd serve` runs it (dashboards and the events feed), on a loopback ephemeral port,
 * with an in-memory token that has every scope the figures use. `url` is the environment root clients are given.
 */
export async function serveDashcd(dataDir: string): Promise<ServedBaseline & { token: string }> {
  const log = silentLogger();
  const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, log, hotBytes: SERVE_HOT_BYTES, bodyWorkers: defaultBodyWorkers(), ...eventsServerOptions({ log }) });
  const local = server.environments.get(DEFAULT_ENVIRONMENT);
  if (!local) throw new Error('the default environment did not open');
  const token = local.tokens.addEphemeral(['ReadConfig', 'WriteConfig', 'DataExport'], 'bench');
  // The journals acknowledge a PUT or a document write before its file is written; a data-dir snapshot must wait for the files.
  const settled = async (): Promise<void> => {
    await local.dashboards.flushed();
    await server.documentsFlushed();
  };
  return { url: server.envUrl(DEFAULT_ENVIRONMENT), token, close: () => server.close(), settled };
}
