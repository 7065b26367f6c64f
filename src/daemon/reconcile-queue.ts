import type { Logger } from '../lib/logger.js';
import { errorMessage } from '../lib/error-message.js';

export interface ReconcilePass {
  /** A full pass plans every file (startup, resync, deletions); otherwise only `files`. */
  full: boolean;
  /** The files requested since the last pass (also for a full pass, where they are informational). */
  files: string[];
  reasons: string[];
}

export interface ReconcileQueueOptions {
  run(pass: ReconcilePass): Promise<void>;
  log: Logger;
  /** Quiet time gathering a burst (an editor's save, a git pull) into one pass. */
  debounceMs?: number;
  /** A burst that never goes quiet still runs after this long. */
  maxWaitMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  random?: () => number;
}

export interface ReconcileQueue {
  requestFiles(files: readonly string[], reason: string): void;
  requestFull(reason: string): void;
  /** Resolves when nothing is pending or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops scheduling and drops pending work; resolves once a running pass has finished. */
  stop(): Promise<void>;
}

/**
 * One serialised queue feeds every reconcile: watcher, resync timer and startup. Requests coalesce per file while
 * a pass waits or runs, so each file is reconciled once per burst; at most one pass runs at a time. A failed pass
 * puts its work back (nothing is lost) and retries with exponential backoff, so a target outage heals without a
 * restart; requests arriving during the backoff join the retry instead of postponing it.
 */
export function createReconcileQueue(options: ReconcileQueueOptions): ReconcileQueue {
  const { run, log, debounceMs = 40, maxWaitMs = 1000, retryBaseMs = 500, retryMaxMs = 30_000, random = Math.random } = options;
  const files = new Set<string>();
  const reasons = new Set<string>();
  let full = false;
  let timer: NodeJS.Timeout | undefined;
  let firstRequestAt = 0;
  let running: Promise<void> | undefined;
  let failures = 0;
  let stopped = false;
  let idleWaiters: (() => void)[] = [];

  const pending = (): boolean => full || files.size > 0;
  const settleIdle = (): void => {
    if ((pending() && !stopped) || running || timer) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const arm = (delayMs: number): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void runPass();
    }, delayMs);
  };

  const backoff = (): number => Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 16)) * (0.5 + random() / 2);

  const request = (reason: string): void => {
    reasons.add(reason);
    // A running pass reschedules when it ends; a pending retry keeps its time (a stream of saves must not starve it).
    if (stopped || running || (timer && failures > 0)) return;
    const now = Date.now();
    if (!timer) firstRequestAt = now;
    arm(Math.max(0, Math.min(debounceMs, maxWaitMs - (now - firstRequestAt))));
  };

  const takePass = (): ReconcilePass => {
    const pass: ReconcilePass = { full, files: [...files].sort(), reasons: [...reasons] };
    full = false;
    files.clear();
    reasons.clear();
    return pass;
  };

  const putBack = (pass: ReconcilePass): void => {
    if (pass.full) full = true;
    for (const file of pass.files) files.add(file);
    for (const reason of pass.reasons) reasons.add(reason);
  };

  async function runPass(): Promise<void> {
    if (!pending() || stopped) return settleIdle();
    const pass = takePass();
    running = run(pass).then(
      () => {
        failures = 0;
      },
      (error: unknown) => {
        const err = errorMessage(error);
        if (stopped) return log.info({ err }, 'reconcile pass interrupted by shutdown');
        failures++;
        putBack(pass);
        log.warn({ err, failures, full: pass.full, files: pass.files.length }, 'reconcile pass failed; will retry');
      },
    );
    await running;
    running = undefined;
    if (pending() && !stopped) {
      firstRequestAt = Date.now();
      arm(failures > 0 ? backoff() : debounceMs);
    }
    settleIdle();
  }

  return {
    requestFiles(changed, reason) {
      for (const file of changed) files.add(file);
      if (changed.length > 0) request(reason);
    },
    requestFull(reason) {
      full = true;
      request(reason);
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
      full = false;
      files.clear();
      reasons.clear();
      settleIdle();
    },
  };
}
