import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadSpec } from './load-spec.js';

export type { LoadResult, LoadSpec } from './load-spec.js';

/** Slack past the run's own deadline before the watchdog ends a worker that did not stop by itself. */
const WATCHDOG_SLACK_MS = 15_000;

/** Runs one bounded load run from a worker thread and returns its tally. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: spec });
  return await new Promise<LoadResult>((resolve, reject) => {
    const watchdog = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`load run did not stop within ${spec.durationMs + WATCHDOG_SLACK_MS} ms`));
    }, spec.durationMs + WATCHDOG_SLACK_MS);
    worker.once('message', (message: { ok: boolean; result?: LoadResult; error?: string }) => {
      clearTimeout(watchdog);
      void worker.terminate();
      if (message.ok && message.result) resolve(message.result);
      else reject(new Error(`load worker failed: ${message.error ?? 'unknown'}`));
    });
    worker.once('error', (error) => {
      clearTimeout(watchdog);
      reject(error);
    });
    worker.once('exit', (code) => {
      clearTimeout(watchdog);
      reject(new Error(`load worker exited with ${code} before reporting`));
    });
  });
}
