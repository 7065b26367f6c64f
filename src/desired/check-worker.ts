import { parentPort } from 'node:worker_threads';
import type { CheckRequest, CheckResponse } from './check-pool.js';
import { checkSource } from './check-source.js';

// Worker entry: checks batches of file texts; the pool owns ordering, retries and shutdown.
parentPort?.on('message', (request: CheckRequest) => {
  const response: CheckResponse = { batch: request.batch, results: request.sources.map((s) => checkSource(s)) };
  parentPort?.postMessage(response);
});
