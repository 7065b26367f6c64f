// A `serve` in a child process for the crash test: starts the built server (dist/) on a free loopback port over the
// data dir given as argv[2], adds an in-memory token, and prints {"url","token"} as one JSON line on stdout.
import { createLogger } from '../../dist/lib/logger.js';
import { startServer } from '../../dist/server/create-server.js';

const dataDir = process.argv[2];
if (!dataDir) {
  process.stderr.write('usage: node serve-child.mjs <data dir>\n');
  process.exit(64);
}
const server = await startServer({ dataDir, host: '127.0.0.1', port: 0, log: createLogger({ level: 'warn' }) });
const token = server.environments.get('local').tokens.addEphemeral(['ReadConfig', 'WriteConfig']);
process.stdout.write(`${JSON.stringify({ url: server.envUrl(), token })}\n`);
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
