import { setMaxListeners } from 'node:events';
import { resolve } from 'node:path';
import type { RetryPolicy } from '../client/api-client.js';
import { followEvents, type PullProgress } from '../archive/pull-events.js';
import type { Logger } from '../lib/logger.js';
import { openEndpoint, type Endpoint } from './daemon-endpoint.js';
import { DaemonStatus } from './daemon-status.js';
import { createDesiredCache } from '../desired/load-desired.js';
import { describeFollow } from '../source/follow.js';
import { openRepoFollowing, type RepoOptions } from './daemon-repo.js';
import { createReconcilePass, type PassSource } from './reconcile-pass.js';
import { createReconcileQueue, type ReconcileQueue } from './reconcile-queue.js';
import { watchDashboards } from './watch-dashboards.js';

export interface DaemonOptions {
  dir: string;
  cwd: string;
  archiveDir: string;
  dataDir: string;
  /** A remote environment; without it the daemon serves the embedded API on `listen` and reconciles into it. */
  target?: { baseUrl: string; token: string } | undefined;
  listen: { host: string; port: number };
  resyncMs: number;
  pollMs: number;
  sinceMs: number;
  selfHeal: boolean;
  /** Delete owned orphans; undefined: `prune` in dashcd.yaml decides. */
  prune: boolean | undefined;
  /** undefined: `maxDelete` in dashcd.yaml, else 5. */
  maxDelete: number | undefined;
  concurrency: number;
  simulateEvents: boolean;
  /** Follow a git repository instead of watching `dir`: each pass reads a clean checkout of the fetched commit. */
  repo?: RepoOptions;
  /** The client's per-request retry policy (e.g. a shorter deadline from DASHCD_RETRY_DEADLINE). */
  retry?: Partial<RetryPolicy>;
  /** How long shutdown lets a running pass finish its writes before aborting its requests (default 3 s). */
  shutdownGraceMs?: number;
  log: Logger;
  /** Aborting it shuts the daemon down. */
  signal: AbortSignal;
  onReady?(info: DaemonReady): void;
}

export interface DaemonReady {
  statusUrl: string;
  /** Present when the daemon serves the embedded API. `token` is valid until the daemon stops. */
  api?: { url: string; envUrl: string; token: string };
  target: string;
}

/**
 * The composition root of `dashcd daemon`: target (remote, or the embedded API with the status endpoints on the same
 * port), one serialised reconcile queue fed by startup, the file watcher and the resync timer, and the events poller.
 * Resolves after a clean shutdown once `signal` aborts: watching and polling stop, in-flight writes finish, the
 * archive checkpoint is flushed.
 *
 * Two signals: `signal` (shutdown asked) stops new work at once — no new pass, read or write, and the poller's
 * request and waits are cut; `requests` aborts the client's in-flight requests and retry waits, only after the
 * grace period, so a write already sent completes while a pass retrying against a dead target cannot hold shutdown.
 */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  const { log, signal } = options;
  const status = new DaemonStatus();
  const requests = new AbortController();
  // undici adds an abort listener to the client's signal per request in flight (queued ones too) and each retry wait
  // adds one: a pass at --concurrency 8, its list read and the poller pass Node's default of 10 and print a
  // MaxListenersExceededWarning. Each listener goes when its request settles, so the count is bounded by the
  // requests in flight, not a leak; the limit is lifted for this signal only (as the CLI does for its client).
  setMaxListeners(0, requests.signal);
  const repo = options.repo ? await openRepoFollowing(options.repo, { cwd: options.cwd, dataDir: options.dataDir, log }) : undefined;
  const endpoint = await openEndpoint(options, status, requests.signal, repo ? [repo.hook] : []);
  const dir = resolve(options.cwd, options.dir);
  let firstFullPassEnded: () => void = () => undefined;
  const firstFullPass = new Promise<void>((done) => (firstFullPassEnded = done));
  const source = repo?.attach(status, endpoint.env);
  const queue = createDaemonQueue(options, dir, endpoint, status, firstFullPassEnded, source);
  // A checkout never changes under the daemon: following a repository, the fetch loop says when to read, not a watcher.
  const watcher = repo
    ? undefined
    : watchDashboards({
        dir,
        cwd: options.cwd,
        log: log.child({ component: 'watcher' }),
        onChange: (files) => queue.requestFiles(files, 'file-changed'),
        onTreeChange: () => queue.requestFull('tree-changed'),
      });
  const resync = setInterval(() => queue.requestFull('resync'), options.resyncMs);
  const poller = startPollerAfter(firstFullPass, options, endpoint, status);
  const follower = repo?.start(() => queue.requestFull('new-revision'), signal);
  // The first pass starts once the watcher has scanned the folder: a save during the scan is then either read by
  // the pass or reported by the watcher, never lost between the two.
  await Promise.race([watcher?.ready, aborted(signal)]);
  if (!signal.aborted) {
    queue.requestFull('startup');
    const from = options.repo ? { repo: options.repo.url, follow: describeFollow(options.repo.follow), path: options.repo.path } : { dir };
    log.info({ target: endpoint.label, status: endpoint.statusUrl, ...from, selfHeal: options.selfHeal, prune: options.prune }, 'daemon ready');
    options.onReady?.({ statusUrl: endpoint.statusUrl, target: endpoint.label, ...(endpoint.api ? { api: endpoint.api } : {}) });
  }

  await aborted(signal);
  log.info({}, 'shutting down: stopping the watcher and poller, finishing in-flight writes');
  status.alive = false;
  clearInterval(resync);
  await watcher?.close();
  await follower?.stopped;
  await finishQueue(queue, requests, options.shutdownGraceMs ?? 3000, log);
  await poller;
  await endpoint.close();
  log.info({}, 'daemon stopped');
}

/** `onFullPassEnd` runs after every full pass, whether it succeeded or failed. */
function createDaemonQueue(options: DaemonOptions, dir: string, endpoint: Endpoint, status: DaemonStatus, onFullPassEnd: () => void, source?: PassSource): ReconcileQueue {
  const log = options.log.child({ component: 'reconcile' });
  const { cwd, concurrency, signal } = options;
  const runPass = createReconcilePass({
    planContext: { dir, cwd, api: endpoint.client, targetLabel: endpoint.label, log, concurrency, signal, cache: createDesiredCache() },
    status,
    log,
    selfHeal: options.selfHeal,
    prune: options.prune,
    maxDelete: options.maxDelete,
    ...(source ? { source } : {}),
  });
  return createReconcileQueue({
    log,
    run: async (pass) => {
      try {
        await runPass(pass);
      } finally {
        if (pass.full) onFullPassEnd();
      }
    },
  });
}

/** Lets the running pass finish; past the grace period its requests and retry waits are aborted. */
async function finishQueue(queue: ReconcileQueue, requests: AbortController, graceMs: number, log: Logger): Promise<void> {
  const grace = setTimeout(() => {
    log.warn({ graceMs }, 'a reconcile pass is still running after the grace period; aborting its requests');
    requests.abort(new Error('daemon shutdown'));
  }, graceMs);
  try {
    await queue.stop();
  } finally {
    clearTimeout(grace);
    requests.abort(new Error('daemon shutdown'));
  }
}

/**
 * First a full reconcile, then the events poller: it starts when the first full pass ends, whatever its result.
 * Against a failing target that pass fails once its requests give up; the poller starts then and backs off on its
 * own while the queue keeps retrying the reconcile. Shutdown before that: no poller.
 */
function startPollerAfter(firstFullPass: Promise<void>, options: DaemonOptions, endpoint: Endpoint, status: DaemonStatus): Promise<unknown> {
  const { signal } = options;
  return Promise.race([firstFullPass, aborted(signal)]).then(() => (signal.aborted ? undefined : startPoller(options, endpoint, status)));
}

function startPoller(options: DaemonOptions, endpoint: Endpoint, status: DaemonStatus): Promise<unknown> {
  const log = options.log.child({ component: 'poller' });
  const archiveDir = resolve(options.cwd, options.archiveDir);
  log.info({ archive: archiveDir, env: endpoint.env, intervalMs: options.pollMs }, 'events poller started');
  return followEvents({
    fetchPage: (query, signal) => endpoint.client.events.fetchPageText(query, signal),
    archiveDir,
    env: endpoint.env,
    since: options.sinceMs,
    intervalMs: options.pollMs,
    signal: options.signal,
    log,
    onProgress: recordPollerProgress(status, log),
    onPoll: ({ durationMs }) => status.observePoll(durationMs / 1000),
  }).catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    status.poller = { ...status.poller, lastError: message };
    // followEvents survives feed failures; reaching here means the archive itself is unusable (lock, checkpoint).
    if (!options.signal.aborted) status.alive = false;
    log.error({ err: message }, 'events poller stopped');
  });
}

/** Status and metrics per page; one log line per poll that archived something, at its end (phase idle). */
function recordPollerProgress(status: DaemonStatus, log: Logger): (progress: PullProgress) => void {
  let counted = 0;
  let logged = 0;
  return (progress) => {
    status.poller = {
      lastPollAt: new Date().toISOString(),
      ...(progress.watermark !== null ? { position: progress.watermark } : {}),
      eventsArchived: progress.written,
    };
    status.countEvents({}, Math.max(0, progress.written - counted));
    counted = progress.written;
    if (progress.phase === 'idle' && progress.written > logged) {
      log.info({ archived: progress.written - logged, total: progress.written, lagMs: progress.lagMs }, 'events archived');
      logged = progress.written;
    }
  };
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((done) => signal.addEventListener('abort', () => done(), { once: true }));
}
