import type { Logger } from '../lib/logger.js';

export interface ReconcilePass {
  /** A full pass plans every file (startup, resync, deletions); otherwise only `files`. */
  full: boolean;
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
}

export interface ReconcileQueue {
  requestFiles(files: readonly string[], reason: string): void;
  requestFull(reason: string): void;
  /** Resolves when nothing is pending or running (tests, shutdown). */
  idle(): Promise<void>;
  /** Stops scheduling; lets a running pass finish. */
  stop(): Promise<void>;
}

/**
 * One serialised queue feeds every reconcile: watcher, resync timer and startup. Requests coalesce per file while
 * a pass waits or runs, so each file is reconciled once per burst; a failed pass puts its work back (nothing is
 * lost) and retries with exponential backoff, so a target outage heals without a restart.
 */
export function createReconcileQueue(options: ReconcileQueueOptions): ReconcileQueue {
  const { run, log, debounceMs = 40, maxWaitMs = 1000, retryBaseMs = 500, retryMaxMs = 30_000 } = options;
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
    if (pending() || running || timer) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const schedule = (delayMs: number): void => {
    if (stopped || running) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      void runPass();
    }, delayMs);
  };

  const request = (reason: string): void => {
    reasons.add(reason);
    if (stopped) return;
    const now = Date.now();
    if (!timer) firstRequestAt = now;
    const waited = now - firstRequestAt;
    schedule(failures > 0 ? backoff() : Math.max(0, Math.min(debounceMs, maxWaitMs - waited)));
  };

  const backoff = (): number => Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 16)) * (0.5 + Math.random() / 2);

  async function runPass(): Promise<void> {
    if (!pending() || stopped) return settleIdle();
    const pass: ReconcilePass = { full, files: full ? [] : [...files].sort(), reasons: [...reasons] };
    full = false;
    files.clear();
    reasons.clear();
    running = run(pass).then(
      () => {
        failures = 0;
      },
      (error: unknown) => {
        failures++;
        // Put the work back: the next pass covers it, together with anything requested meanwhile.
        if (pass.full) full = true;
        for (const file of pass.files) files.add(file);
        for (const reason of pass.reasons) reasons.add(reason);
        log.warn({ err: error instanceof Error ? error.message : String(error), failures }, 'reconcile pass failed; will retry');
      },
    );
    await running;
    running = undefined;
    if (pending()) schedule(failures > 0 ? backoff() : debounceMs);
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
      settleIdle();
    },
  };
}
