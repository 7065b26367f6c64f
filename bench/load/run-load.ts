import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadSpec } from './load-spec.js';

export type { LoadResult, LoadSpec } from './load-spec.js';

/** Slack past the run's own deadline before the watchdog ends a worker that did not stop by itself. */
const WATCHDOG_SLACK_MS = 15_000;

type Answer = { ok: boolean; result?: LoadResult; error?: string };

/**
 * Workers that finished a run and wait for the next, unreferenced (they never keep the bench process alive). A new
 * worker loads undici's hundred-odd CommonJS modules before its first request: about 0.35 s of CPU, paid once per
 * worker rather than once per run (a smoke run has fourteen).
 */
const idle: Worker[] = [];

/** Runs one bounded load run from a worker thread and returns its tally. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  const worker = idle.pop() ?? new Worker(new URL('./load-worker.js', import.meta.url));
  worker.ref();
  return await new Promise<LoadResult>((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(watchdog);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
    };
    const onMessage = (message: Answer): void => {
      settle();
      worker.unref();
      idle.push(worker);
      if (message.ok && message.result) resolve(message.result);
      else reject(new Error(`load worker failed: ${message.error ?? 'unknown'}`));
    };
    const onError = (error: Error): void => {
      settle();
      void worker.terminate();
      reject(error);
    };
    const onExit = (code: number): void => {
      settle();
      reject(new Error(`load worker exited with ${code} before reporting`));
    };
    const watchdog = setTimeout(() => {
      settle();
      void worker.terminate();
      reject(new Error(`load run did not stop within ${spec.durationMs + WATCHDOG_SLACK_MS} ms`));
    }, spec.durationMs + WATCHDOG_SLACK_MS);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(spec);
  });
}
