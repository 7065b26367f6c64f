import { resolve } from 'node:path';
import { followEvents, type PullProgress } from '../archive/pull-events.js';
import type { Logger } from '../lib/logger.js';
import type { LoopTarget } from './daemon-endpoint.js';
import type { DaemonStatus } from './daemon-status.js';
import { errorMessage } from '../lib/error-message.js';
import type { Since } from '../archive/pull-plan.js';

export interface PollerOptions {
  cwd: string;
  archiveDir: string;
  since: Since;
  pollMs: number;
  signal: AbortSignal;
  log: Logger;
}

/**
 * First a full reconcile, then the events poller: it starts when the first full pass ends, whatever its result.
 * Against a failing target that pass fails once its requests give up; the poller starts then and backs off on its
 * own while the queue keeps retrying the reconcile. Shutdown before that: no poller.
 */
export function startPollerAfter(firstFullPass: Promise<void>, options: PollerOptions, target: LoopTarget, status: DaemonStatus): Promise<unknown> {
  const { signal } = options;
  return Promise.race([firstFullPass, aborted(signal)]).then(() => (signal.aborted ? undefined : startPoller(options, target, status)));
}

/** Archives `target`'s feed under `<archive>/<target.env>/`. */
function startPoller(options: PollerOptions, target: LoopTarget, status: DaemonStatus): Promise<unknown> {
  const log = options.log.child({ component: 'poller' });
  const archiveDir = resolve(options.cwd, options.archiveDir);
  // An environment's log names it already; the one target's does not.
  const named = options.log.bindings()['env'] === undefined ? { env: target.env } : {};
  log.info({ archive: archiveDir, ...named, intervalMs: options.pollMs }, 'events poller started');
  return followEvents({
    fetchPage: (query, signal) => target.client.events.fetchPageText(query, signal),
    archiveDir,
    env: target.env,
    since: options.since,
    intervalMs: options.pollMs,
    signal: options.signal,
    log,
    onProgress: recordPollerProgress(status, log),
    onPoll: ({ durationMs }) => status.observePoll(durationMs),
  }).catch((error: unknown) => {
    const message = errorMessage(error);
    // followEvents survives feed failures; reaching here means the archive itself is unusable (lock, checkpoint).
    status.pollerStopped(message, options.signal.aborted);
    log.error({ err: message }, 'events poller stopped');
  });
}

/** Status and metrics per page; one log line per poll that archived something, at its end (phase idle). */
function recordPollerProgress(status: DaemonStatus, log: Logger): (progress: PullProgress) => void {
  let counted = 0;
  let logged = 0;
  return (progress) => {
    status.pollerProgress(progress, Math.max(0, progress.written - counted));
    counted = progress.written;
    // After every pass, one that failed too: what it wrote is archived.
    if (progress.phase !== 'pulling' && progress.written > logged) {
      log.info({ archived: progress.written - logged, total: progress.written, lagMs: progress.lagMs }, 'events archived');
      logged = progress.written;
    }
  };
}

export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}
