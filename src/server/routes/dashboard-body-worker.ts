import { parentPort } from 'node:worker_threads';
import { prepareOutcome, type BodyJob } from './dashboard-body-job.js';

// Worker entry: prepares dashboard bodies; the pool owns dispatch, fallback and shutdown.
parentPort?.on('message', (job: BodyJob) => {
  parentPort?.postMessage(prepareOutcome(job));
});
