// A pull in its own process, for the crash test: `node pull-child.mjs <archiveDir> <feedUrl> <sinceMs back>`.
// Runs the compiled library (npm test builds first) and reports each page on stdout so the test can kill it
// with SIGKILL at a chosen moment.
import { pullEvents } from '../../dist/archive/pull-events.js';
import { createLogger } from '../../dist/lib/logger.js';

const [archiveDir, url, since] = process.argv.slice(2);
let pages = 0;
const summary = await pullEvents({
  archiveDir,
  env: 'prod',
  since: { back: Number(since) },
  signal: new AbortController().signal,
  log: createLogger({ level: 'warn' }),
  checkpointEveryMs: Number(process.env.CHECKPOINT_EVERY_MS ?? 250),
  fetchPage: async (query, signal) => {
    const response = await fetch(`${url}/api/v1/events?${query}`, { signal });
    if (response.status !== 200) throw new Error(`feed answered ${response.status}`);
    return response.text();
  },
  onProgress: (progress) => {
    if (progress.pages > pages) {
      pages = progress.pages;
      process.stdout.write(`page ${pages}\n`);
    }
  },
});
process.stdout.write(`done ${JSON.stringify(summary)}\n`);
