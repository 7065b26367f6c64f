import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { checkDashboardSource } from './check-file.js';
import type { FileCheck } from './dashboard-rules.js';
import { tsSourceLoaderImport } from './ts-source-loader.js';

export interface CheckRequest {
  batch: number;
  sources: string[];
}

export interface CheckResponse {
  batch: number;
  results: FileCheck[];
}

/** Files per message: small enough to balance two threads, large enough that messaging stays negligible. */
const BATCH_SIZE = 16;

/**
 * Batches queued at each worker. With one, a worker idled after every batch until the calling thread, busy with
 * a batch of its own, read the reply and sent the next: about a third of its time in a plan of 10,000 files.
 */
const IN_FLIGHT_PER_WORKER = 2;

/**
 * One thread per 50 files up to the core count, the calling thread included (it checks batches too): below ~50
 * files a worker's start-up (~100 ms of module loading) costs more than it saves, and a worker beyond the core
 * count only competes with the calling thread.
 */
export function defaultWorkerCount(files: number): number {
  return Math.max(0, Math.min(Math.floor(files / 50), availableParallelism()) - 1);
}

/**
 * Checks every source; results in input order. With `workers > 0`, batches go to worker threads, and the calling
 * thread takes batches too while they start (a worker needs ~100 ms to load its modules). A worker that fails
 * puts its batch back in the queue, so a broken pool degrades to in-thread checking instead of losing files; an
 * error the check itself throws still surfaces, from the calling thread.
 */
export async function checkSources(
  sources: readonly string[],
  workers: number,
  onBatch: (thread: 'worker' | 'calling') => void = () => undefined,
): Promise<FileCheck[]> {
  const run = new BatchRun(sources, onBatch);
  if (workers <= 0 || run.batchCount <= 1) return run.runInline();
  return run.run(workers);
}

interface Thread {
  worker: Worker;
  /** Batches sent and not yet answered: put back in the queue if the worker fails. */
  inFlight: number[];
}

class BatchRun {
  private readonly batches: number[][] = [];
  private readonly results: FileCheck[];
  private readonly queue: number[];
  private readonly threads: Thread[] = [];
  private remaining: number;
  private inlineRunning = false;
  private settle: { resolve(results: FileCheck[]): void; reject(error: unknown): void } | undefined;

  constructor(
    private readonly sources: readonly string[],
    private readonly onBatch: (thread: 'worker' | 'calling') => void,
  ) {
    for (let i = 0; i < sources.length; i += BATCH_SIZE) {
      this.batches.push(Array.from({ length: Math.min(BATCH_SIZE, sources.length - i) }, (_, k) => i + k));
    }
    this.results = new Array<FileCheck>(sources.length);
    this.queue = this.batches.map((_, b) => b);
    this.remaining = this.batches.length;
  }

  get batchCount(): number {
    return this.batches.length;
  }

  runInline(): FileCheck[] {
    for (let b = 0; b < this.batches.length; b++) {
      this.store(b, this.check(b));
      this.onBatch('calling');
    }
    return this.results;
  }

  run(workers: number): Promise<FileCheck[]> {
    return new Promise<FileCheck[]>((resolve, reject) => {
      this.settle = { resolve, reject };
      for (let i = 0; i < workers; i++) this.threads.push(this.startThread());
      for (let k = 0; k < IN_FLIGHT_PER_WORKER; k++) this.threads.forEach((t) => this.feed(t));
      this.kickInline();
    });
  }

  private check(batch: number): FileCheck[] {
    return (this.batches[batch] as number[]).map((i) => checkDashboardSource(this.sources[i] as string));
  }

  private store(batch: number, checks: readonly FileCheck[]): void {
    (this.batches[batch] as number[]).forEach((index, k) => (this.results[index] = checks[k] as FileCheck));
  }

  private completed(): void {
    this.remaining -= 1;
    if (this.remaining === 0) void this.stopThreads().then(() => this.settle?.resolve(this.results));
  }

  private stopThreads(): Promise<unknown> {
    return Promise.all(this.threads.map((t) => t.worker.terminate()));
  }

  private feed(thread: Thread): void {
    const batch = this.queue.shift();
    if (batch === undefined) return;
    thread.inFlight.push(batch);
    const sources = (this.batches[batch] as number[]).map((i) => this.sources[i] as string);
    thread.worker.postMessage({ batch, sources } satisfies CheckRequest);
  }

  private kickInline(): void {
    if (this.inlineRunning) return;
    this.inlineRunning = true;
    setImmediate(() => this.inlineStep());
  }

  /** One batch on the calling thread, then yield so worker replies are handled between batches. */
  private inlineStep(): void {
    const batch = this.queue.shift();
    if (batch === undefined) {
      this.inlineRunning = false;
      return;
    }
    try {
      this.store(batch, this.check(batch));
      this.onBatch('calling');
    } catch (error) {
      void this.stopThreads().finally(() => this.settle?.reject(error));
      return;
    }
    this.completed();
    setImmediate(() => this.inlineStep());
  }

  private startThread(): Thread {
    const fromSource = import.meta.url.endsWith('.ts');
    const entry = new URL(fromSource ? './check-worker.ts' : './check-worker.js', import.meta.url);
    const worker = new Worker(entry, fromSource ? { execArgv: ['--import', tsSourceLoaderImport()] } : {});
    const thread: Thread = { worker, inFlight: [] };
    worker.on('message', (response: CheckResponse) => {
      thread.inFlight = thread.inFlight.filter((b) => b !== response.batch);
      this.store(response.batch, response.results);
      this.onBatch('worker');
      this.feed(thread);
      this.completed();
    });
    const requeue = (): void => {
      this.queue.unshift(...thread.inFlight);
      thread.inFlight = [];
      this.kickInline();
    };
    worker.on('error', requeue);
    worker.on('exit', requeue);
    return thread;
  }
}
