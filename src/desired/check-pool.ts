import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { checkSource } from './check-source.js';
import { startModuleWorker } from '../lib/module-worker.js';
import type { PackedCheck } from './packed-check.js';

export interface CheckRequest {
  batch: number;
  sources: string[];
}

export interface CheckResponse {
  batch: number;
  results: PackedCheck[];
}

/** Files per message: small enough to balance two threads, large enough that messaging stays negligible. */
const BATCH_SIZE = 16;

/**
 * Batches queued at each worker. With one, a worker idled after every batch until the calling thread, busy with
 * a batch of its own, read the reply and sent the next: about a third of its time in a plan of 10,000 files.
 */
const IN_FLIGHT_PER_WORKER = 4;

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
 * thread checks queued batches too, one file per turn of its event loop (so it also covers the ~100 ms a worker needs
 * to load its modules). A worker that fails
 * puts its batch back in the queue, so a broken pool degrades to in-thread checking instead of losing files; an
 * error the check itself throws still surfaces, from the calling thread.
 */
export async function checkSources(sources: SourceTexts, workers: number, hooks: CheckHooks = {}): Promise<PackedCheck[]> {
  const run = new BatchRun(sources, hooks);
  if (workers <= 0 || run.batchCount <= 1) return run.runInline();
  return run.run(workers);
}

/**
 * The texts to check, each made when its batch is sent or checked: a caller can keep a folder's bytes off the JS heap
 * (where 10,000 texts held to the end were copied by every young-generation collection) and decode one at a time.
 */
export interface SourceTexts {
  readonly length: number;
  text(index: number): string;
}

/** Texts already in memory. */
export function sourceTexts(texts: readonly string[]): SourceTexts {
  return { length: texts.length, text: (index) => texts[index] as string };
}

export interface CheckHooks {
  /** After each batch, with the thread that checked it (tests use it to see the pool at work). */
  onBatch?: (thread: 'worker' | 'calling') => void;
  /** Each result as it lands, in any order: lets a caller start on a file before the others are checked. */
  onChecked?: (index: number, check: PackedCheck) => void;
  /** What to hold of each result as it lands (before onChecked): a caller bounds what a whole folder's checks hold. */
  keep?: (index: number, check: PackedCheck) => PackedCheck;
}

interface Thread {
  worker: Worker;
  /** Batches sent and not yet answered: put back in the queue if the worker fails. */
  inFlight: number[];
}

class BatchRun {
  private readonly batches: number[][] = [];
  private readonly results: PackedCheck[];
  private readonly queue: number[];
  private readonly threads: Thread[] = [];
  private remaining: number;
  private inlineRunning = false;
  /** The batch the calling thread is part way through. */
  private inlineBatch: { batch: number; checks: PackedCheck[] } | undefined;
  private settle: { resolve(results: PackedCheck[]): void; reject(error: unknown): void } | undefined;

  constructor(
    private readonly sources: SourceTexts,
    private readonly hooks: CheckHooks,
  ) {
    for (let i = 0; i < sources.length; i += BATCH_SIZE) {
      this.batches.push(Array.from({ length: Math.min(BATCH_SIZE, sources.length - i) }, (_, k) => i + k));
    }
    this.results = new Array<PackedCheck>(sources.length);
    this.queue = this.batches.map((_, b) => b);
    this.remaining = this.batches.length;
  }

  get batchCount(): number {
    return this.batches.length;
  }

  runInline(): PackedCheck[] {
    for (let b = 0; b < this.batches.length; b++) {
      this.store(b, this.check(b));
      this.hooks.onBatch?.('calling');
    }
    return this.results;
  }

  run(workers: number): Promise<PackedCheck[]> {
    return new Promise<PackedCheck[]>((resolve, reject) => {
      this.settle = { resolve, reject };
      for (let i = 0; i < workers; i++) this.threads.push(this.startThread());
      for (let k = 0; k < IN_FLIGHT_PER_WORKER; k++) this.threads.forEach((t) => this.feed(t));
      this.kickInline();
    });
  }

  private check(batch: number): PackedCheck[] {
    return (this.batches[batch] as number[]).map((i) => checkSource(this.sources.text(i)));
  }

  private store(batch: number, checks: readonly PackedCheck[]): void {
    (this.batches[batch] as number[]).forEach((index, k) => {
      const landed = checks[k] as PackedCheck;
      const check = this.hooks.keep ? this.hooks.keep(index, landed) : landed;
      this.results[index] = check;
      this.hooks.onChecked?.(index, check);
    });
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
    const sources = (this.batches[batch] as number[]).map((i) => this.sources.text(i));
    thread.worker.postMessage({ batch, sources } satisfies CheckRequest);
  }

  private kickInline(): void {
    if (this.inlineRunning) return;
    this.inlineRunning = true;
    setImmediate(() => this.inlineStep());
  }

  /**
   * One file of a batch on the calling thread, then yield: worker replies, and whatever else the caller does
   * meanwhile (the plan reading live dashboards), wait a third of a millisecond, not a whole batch's five.
   */
  private inlineStep(): void {
    if (this.inlineBatch === undefined) {
      const batch = this.queue.shift();
      if (batch === undefined) {
        this.inlineRunning = false;
        return;
      }
      this.inlineBatch = { batch, checks: [] };
    }
    const { batch, checks } = this.inlineBatch;
    const indexes = this.batches[batch] as number[];
    try {
      checks.push(checkSource(this.sources.text(indexes[checks.length] as number)));
    } catch (error) {
      void this.stopThreads().finally(() => this.settle?.reject(error));
      return;
    }
    if (checks.length === indexes.length) {
      this.inlineBatch = undefined;
      this.store(batch, checks);
      this.hooks.onBatch?.('calling');
      this.completed();
    }
    setImmediate(() => this.inlineStep());
  }

  private startThread(): Thread {
    const worker = startModuleWorker('check-worker', import.meta.url);
    const thread: Thread = { worker, inFlight: [] };
    worker.on('message', (response: CheckResponse) => {
      thread.inFlight = thread.inFlight.filter((b) => b !== response.batch);
      this.store(response.batch, response.results);
      this.hooks.onBatch?.('worker');
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
