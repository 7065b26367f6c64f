import type { Worker } from 'node:worker_threads';
import { startModuleWorker } from '../../lib/module-worker.js';
import type { Logger } from '../../lib/logger.js';
import type { PreparedDashboard } from '../store/dashboard-document.js';
import { prepareOutcome, settled, type BodyJob, type BodyOutcome } from './dashboard-body-job.js';
import type { BodyTarget } from './dashboard-validation.js';

/**
 * Parses, validates and serialises dashboard bodies. That is most of a PUT's CPU (a 17 KB body: ~250 µs of ~400),
 * and on the main thread it capped the server at one core while the machine had another mostly idle: worker threads
 * take it, and the main thread is left with HTTP, the journal and the index.
 */
export interface DashboardBodyPool {
  /** Resolves to the body ready to store, or rejects with the HttpError it deserves (400 for bad JSON or schema). */
  prepare(bytes: Uint8Array, target: BodyTarget): Promise<PreparedDashboard>;
  /** Stops the workers; bodies still being prepared finish on the calling thread. */
  close(): Promise<void>;
}

export interface BodyPoolOptions {
  /**
   * Worker threads at most, started as concurrent bodies need them (`serve` asks for defaultBodyWorkers(), server-node-options.ts); 0, the
   * default, prepares every body on the calling thread.
   */
  readonly workers?: number;
  /** Smaller bodies stay on the calling thread (default OFFLOAD_BYTES). */
  readonly offloadBytes?: number;
  readonly log?: Logger;
  /** Starts one worker: the real entry by default; a test passes one that fails. */
  readonly startWorker?: () => Worker;
}

/**
 * Below this a body is prepared where it arrived: posting it and its answer costs some 30 µs, about what preparing a
 * small body costs, and a server that only ever sees small bodies (most tests, a token admin) never starts a worker.
 */
export const OFFLOAD_BYTES = 8 * 1024;

interface Pending {
  readonly job: BodyJob;
  resolve(prepared: PreparedDashboard): void;
  reject(error: unknown): void;
}

interface Thread {
  readonly worker: Worker;
  readonly pending: Map<number, Pending>;
}

export function createDashboardBodyPool(options: BodyPoolOptions = {}): DashboardBodyPool {
  return new BodyPool(options);
}

class BodyPool implements DashboardBodyPool {
  private readonly threads: Thread[] = [];
  private readonly maxThreads: number;
  private readonly offloadBytes: number;
  private readonly startWorker: () => Worker;
  private seq = 0;
  /** A worker failed: from then on every body is prepared on the calling thread. */
  private broken = false;
  private closed = false;

  constructor(private readonly options: BodyPoolOptions) {
    this.maxThreads = Math.max(0, options.workers ?? 0);
    this.offloadBytes = options.offloadBytes ?? OFFLOAD_BYTES;
    this.startWorker = options.startWorker ?? ((): Worker => startModuleWorker('dashboard-body-worker', import.meta.url));
  }

  async prepare(bytes: Uint8Array, target: BodyTarget): Promise<PreparedDashboard> {
    const job: BodyJob = { seq: (this.seq += 1), bytes, target };
    if (this.maxThreads === 0 || this.broken || this.closed || bytes.length < this.offloadBytes) return settled(prepareOutcome(job));
    const thread = this.pickThread();
    // No worker could be started, and the ones running are being stopped: this body is prepared here too.
    if (!thread || this.broken) return settled(prepareOutcome(job));
    // A copy of exactly the body, handed over without a second copy; the original stays for the fallback.
    const copy = new Uint8Array(bytes);
    try {
      thread.worker.postMessage({ ...job, bytes: copy } satisfies BodyJob, [copy.buffer]);
    } catch (error) {
      this.breaks(error);
      return settled(prepareOutcome(job));
    }
    return new Promise<PreparedDashboard>((resolve, reject) => thread.pending.set(job.seq, { job, resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  /**
   * The least busy worker, or a new one while every running worker has a body and the pool may grow; undefined when
   * a worker cannot even be started (the pool is then broken).
   */
  private pickThread(): Thread | undefined {
    let best: Thread | undefined;
    for (const thread of this.threads) if (!best || thread.pending.size < best.pending.size) best = thread;
    if (best && (best.pending.size === 0 || this.threads.length >= this.maxThreads)) return best;
    return this.addThread() ?? best;
  }

  private addThread(): Thread | undefined {
    let worker: Worker;
    try {
      worker = this.startWorker();
    } catch (error) {
      this.breaks(error);
      return undefined;
    }
    worker.unref();
    const thread: Thread = { worker, pending: new Map() };
    this.threads.push(thread);
    worker.on('message', (outcome: BodyOutcome) => {
      const pending = thread.pending.get(outcome.seq);
      if (!pending) return;
      thread.pending.delete(outcome.seq);
      answer(pending, () => outcome);
    });
    worker.on('error', (error) => this.lost(thread, error));
    // An answer that cannot be read back would leave its request waiting forever.
    worker.on('messageerror', (error) => this.lost(thread, error));
    worker.on('exit', (code) => this.lost(thread, new Error(`body worker exited with code ${code}`)));
    return thread;
  }

  /**
   * A worker died, failed or was stopped by close: its bodies are prepared here. Unless closing, the pool breaks: the
   * other workers are stopped (their bodies come here too) and none is used again.
   */
  private lost(thread: Thread, error: unknown): void {
    const index = this.threads.indexOf(thread);
    if (index !== -1) this.threads.splice(index, 1);
    if (!this.closed) this.breaks(error);
    void thread.worker.terminate();
    const pending = [...thread.pending.values()];
    thread.pending.clear();
    for (const held of pending) answer(held, () => prepareOutcome(held.job));
  }

  private breaks(error: unknown): void {
    if (this.broken) return;
    this.broken = true;
    this.options.log?.warn({ err: error }, 'a dashboard body worker failed; bodies are prepared on the main thread from now on');
    for (const other of this.threads) void other.worker.terminate();
  }
}

/** Settles a held body with its outcome (made by `outcome`, which may throw, as preparing does for a bug). */
function answer(pending: Pending, outcome: () => BodyOutcome): void {
  try {
    pending.resolve(settled(outcome()));
  } catch (error) {
    pending.reject(error);
  }
}
