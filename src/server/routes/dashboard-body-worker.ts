import { parentPort } from 'node:worker_threads';
import { transferablesOf } from '../store/dashboard-document.js';
import { prepareOutcome, type BodyJob } from './dashboard-body-job.js';

// Worker entry: prepares dashboard bodies; the pool owns dispatch, fallback and shutdown.
parentPort?.on('message', (job: BodyJob) => {
  const outcome = prepareOutcome(job);
  parentPort?.postMessage(outcome, outcome.ok ? transferablesOf(outcome.prepared) : []);
});
