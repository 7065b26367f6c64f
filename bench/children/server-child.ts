import { serveBytesFromMemory, serveDiscardedPuts, serveDurablePuts, type ServedBaseline } from '../baselines/bare-http.js';
import { serveDurableCreates } from '../baselines/bare-documents.js';
import { serveNaiveEvents } from '../baselines/naive-events.js';
import { serveLoggedPages } from '../baselines/bare-events-log.js';
import { serveDashcd } from './dashcd-server.js';
import { reportChildFailure, serveUntilStopped } from '../lib/child.js';

/**
 * A server under measurement, in its own process so its memory and CPU are its own and the load generator
 * (a worker thread in the bench process) never shares its event loop. argv: <kind> <arg>.
 */
const KINDS: Record<string, (arg: string) => Promise<ServedBaseline & { events?: number; token?: string }>> = {
  dashcd: serveDashcd,
  'bare-get': serveBytesFromMemory,
  'bare-events-log': serveLoggedPages,
  'bare-put': serveDurablePuts,
  'null-put': serveDiscardedPuts,
  'naive-events': serveNaiveEvents,
  'bare-document-create': serveDurableCreates,
};

async function main(): Promise<void> {
  const [kind = '', arg = ''] = process.argv.slice(2);
  const start = KINDS[kind];
  if (!start) throw new Error(`unknown server kind ${kind}`);
  const { close, settled, ...info } = await start(arg);
  serveUntilStopped(info, close, settled);
}

main().catch(reportChildFailure);
