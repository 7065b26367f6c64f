import type { IncomingMessage, ServerResponse } from 'node:http';
import { resolve } from 'node:path';
import { declaredEnvironments, remoteTargetOrigin } from '../environments/environment.js';
import type { Logger } from '../lib/logger.js';
import { createDesiredCache } from '../desired/load-desired.js';
import { planEnvironment } from '../reconcile/plan-dashboards.js';
import { describeFollow } from '../source/follow.js';
import { openEndpoint, type Endpoint, type LoopTarget, type TargetSpec } from './daemon-endpoint.js';
import { aborted, startPollerAfter } from './daemon-poller.js';
import { openRepoFollowing, type RepoFollowing } from './daemon-repo.js';
import { daemonConsole } from './daemon-console.js';
import { FolderCommit } from './folder-commit.js';
import type { DaemonEnvironment, DaemonOptions, DaemonReady } from './daemon-options.js';
import { DaemonStatus } from './daemon-status.js';
import { EnvironmentsStatus } from './environments-status.js';
import type { PassSource } from './pass-source.js';
import { createReconcilePass } from './reconcile-pass.js';
import { createReconcileQueue, type ReconcileQueue } from './reconcile-queue.js';
import { watchDashboards, type DashboardWatcher } from './watch-dashboards.js';
import { errorMessage } from '../lib/error-message.js';
import { expectedErrorsAsMessages } from '../client/expected-errors.js';
import { repositoryLimits } from './repository-limits.js';
import { refuseBeforeCreating } from '../server/create-server.js';

/**
 * The composition root of `dashcd daemon`: the listener (the embedded API with the status endpoints on the same
 * port, or the status endpoints alone), one reconcile loop per target — the one target, or each environment of
 * dashcd.yaml — each a serialised queue fed by startup, the file watcher and its resync timer, with its events
 * poller. Resolves after a clean shutdown once `signal` aborts: watching and polling stop, in-flight writes finish,
 * the archive checkpoints are flushed.
 *
 * Two signals: `signal` (shutdown asked) stops new work at once — no new pass, read or write, and the pollers'
 * requests and waits are cut; `requests` aborts the clients' in-flight requests and retry waits, only after the
 * grace period, so a write already sent completes while a pass retrying against a dead target cannot hold shutdown.
 *
 * A start that fails part-way (an environment's store cannot be opened) stops everything it had opened, as a shutdown
 * does, before rejecting: the process then ends with that error instead of living on half-started.
 */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  // Every part logs through it: a target that is down is logged by its message, not a stack, at every retry.
  const log = expectedErrorsAsMessages(options.log);
  options = { ...options, log };
  // A start that fails half-way stops what it opened as a shutdown would: every loop listens to this signal.
  const failed = new AbortController();
  const signal = AbortSignal.any([options.signal, failed.signal]);
  const requests = new AbortController();
  const started: Started = { loops: [] };
  const stop = (): Promise<void> => stopStarted(started, requests, options.shutdownGraceMs ?? 3000, log);
  try {
    await start({ ...options, signal }, started, requests.signal);
  } catch (error) {
    // Left running, the loops opened so far (timers, listener, stores) would keep a process that can no longer be
    // stopped: its shutdown signal has nobody left to wait for it.
    if (started.endpoint) log.error({ err: errorMessage(error), loopsStarted: started.loops.length }, 'start-up failed: stopping what had started');
    failed.abort(error);
    await stop().catch((cleanup: unknown) => log.error({ err: errorMessage(cleanup) }, 'stopping after a failed start-up failed too'));
    throw error;
  }
  await aborted(signal);
  log.info({}, 'shutting down: stopping the watcher and poller, finishing in-flight writes');
  await stop();
  log.info({}, 'daemon stopped');
}

/** What the daemon has opened so far: each is stopped at shutdown, or when a later part fails to open. */
interface Started {
  view?: DaemonStatus | EnvironmentsStatus;
  endpoint?: Endpoint;
  loops: Loop[];
  watcher?: DashboardWatcher | undefined;
  follower?: { stopped: Promise<void> } | undefined;
}

/** Opens every part, recording each in `started` as it opens; resolves once the daemon is ready (or asked to stop). */
async function start(options: DaemonOptions, started: Started, requests: AbortSignal): Promise<void> {
  const { log, signal } = options;
  // Following a repository fetches into the data dir before the listener opens: a data dir another dashcd owns, or a
  // port in use, is refused first, so a daemon that cannot start leaves nothing behind (startServer checks the same).
  if (options.repo) await refuseBeforeCreating(resolve(options.cwd, options.dataDir), options.listen.host, options.listen.port);
  const repo = options.repo ? await openRepoFollowing(options.repo, { cwd: options.cwd, dataDir: options.dataDir, log, limits: repositoryLimits(options) }) : undefined;
  const environments = options.environments ?? (repo ? await repoEnvironments(repo, options) : undefined);
  options = { ...options, environments };
  const view = (started.view = environments ? new EnvironmentsStatus() : new DaemonStatus());
  const embedded = environments ? environments.some((e) => e.target.kind === 'embedded') : !options.target;
  // The console reads the loops, which need the endpoint first: its route is bound once they exist.
  let consoleRoute: ((req: IncomingMessage, res: ServerResponse) => boolean) | undefined;
  // With environments declared nothing uses the embedded API's `local`: it is not created.
  const endpoint = (started.endpoint = await openEndpoint({ ...options, embedded, openDefault: environments === undefined }, view, requests, [...(repo ? [repo.hook] : []), (req, res) => consoleRoute?.(req, res) ?? false]));
  const dir = resolve(options.cwd, options.dir);
  const loops = await openLoops(options, { endpoint, view, dir, repo }, started.loops);
  consoleRoute = daemonConsole(loops, { ...options, host: options.listen.host, tokens: endpoint.consoleTokens });
  // A checkout never changes under the daemon: following a repository, the fetch loop says when to read, not a watcher.
  started.watcher = repo
    ? undefined
    : watchDashboards({
        dir,
        cwd: options.cwd,
        log: log.child({ component: 'watcher' }),
        onChange: (files) => loops.forEach((loop) => loop.queue.requestFiles(files, 'file-changed')),
        onTreeChange: () => loops.forEach((loop) => loop.queue.requestFull('tree-changed')),
      });
  started.follower = repo?.start(signal);
  // The first pass starts once the watcher has scanned the folder: a save during the scan is then either read by
  // the pass or reported by the watcher, never lost between the two.
  await Promise.race([started.watcher?.ready, aborted(signal)]);
  if (!signal.aborted) announceReady(options, endpoint, loops);
}

/** The first full pass of every loop, and the `daemon ready` line. */
function announceReady(options: DaemonOptions, endpoint: Endpoint, loops: readonly Loop[]): void {
  for (const loop of loops) loop.queue.requestFull('startup');
  const from = options.repo ? { repo: options.repo.url, follow: describeFollow(options.repo.follow), path: options.repo.path } : { dir: resolve(options.cwd, options.dir) };
  const ready = readyInfo(endpoint, loops);
  options.log.info({ target: ready.target, status: endpoint.statusUrl, console: `${endpoint.statusUrl}/ui`, metrics: `${endpoint.statusUrl}/metrics`, ...from, selfHeal: options.selfHeal, prune: options.prune }, 'daemon ready');
  options.onReady?.(ready);
}

/** Stops whatever `started` holds: watching and fetching first, then the passes (within the grace period), pollers, listener. */
async function stopStarted(started: Started, requests: AbortController, graceMs: number, log: Logger): Promise<void> {
  const { loops } = started;
  started.view?.stop();
  for (const loop of loops) clearInterval(loop.resync);
  await started.watcher?.close();
  await started.follower?.stopped;
  await finishQueues(loops.map((loop) => loop.queue), requests, graceMs, log);
  await Promise.all(loops.map((loop) => loop.poller));
  await started.endpoint?.close();
}

/** One target's reconcile loop: its queue, resync timer and events poller. */
interface Loop {
  name: string | undefined;
  target: LoopTarget;
  status: DaemonStatus;
  queue: ReconcileQueue;
  resync: NodeJS.Timeout;
  poller: Promise<unknown>;
}

/** What one loop is made of: its environment's name (none for the one target), where it writes, its status. */
interface LoopParts {
  name: string | undefined;
  target: LoopTarget;
  status: DaemonStatus;
  dir: string;
  source?: PassSource;
}

interface Shared {
  endpoint: Endpoint;
  view: DaemonStatus | EnvironmentsStatus;
  dir: string;
  repo: RepoFollowing | undefined;
}

/**
 * The one loop into the daemon's target, or one per environment (`env` label, archive folder and logs by name), each
 * added to `loops` once started: when a later one fails to open, the caller stops those.
 */
async function openLoops(options: DaemonOptions, shared: Shared, loops: Loop[]): Promise<Loop[]> {
  const { view } = shared;
  if (!options.environments || !(view instanceof EnvironmentsStatus)) {
    const spec: TargetSpec = options.target ? { kind: 'remote', ...options.target } : { kind: 'embedded' };
    const target = await shared.endpoint.target(spec);
    const status = view instanceof DaemonStatus ? view : new DaemonStatus();
    let loop: Loop | undefined;
    const source = (await shared.repo?.attach(status, target.env, () => loop?.queue.requestFull('new-revision')))?.state;
    loop = startLoop(options, { name: undefined, target, status, dir: shared.dir, ...(source ? { source } : {}) });
    loops.push(loop);
    return loops;
  }
  for (const { environment, target: spec } of options.environments) {
    const origin = environment.target.kind === 'remote' ? remoteTargetOrigin(environment, environment.target) : undefined;
    const target = await shared.endpoint.target(spec.kind === 'remote' ? { ...spec, env: environment.name, origin } : { ...spec, env: environment.name });
    const status = view.add(environment, target.label);
    let loop: Loop | undefined;
    // Following a repository, each environment follows its own branch or tags (dashcd.yaml's `source`).
    const source = (await shared.repo?.attach(status, environment.name, () => loop?.queue.requestFull('new-revision'), environment.source))?.state;
    loop = startLoop({ ...options, log: options.log.child({ env: environment.name }) }, { name: environment.name, target, status, dir: shared.dir, ...(source ? { source } : {}) });
    loops.push(loop);
  }
  return loops;
}


/**
 * Following a repository, its environments are in dashcd.yaml of the followed ref's newest commit, read once at
 * start (a change to the set of environments needs a restart; their values are read at every pass). Undefined:
 * none declared, nothing fetched yet, or a commit the operator's --allow-target list refuses — then one loop, as
 * without environments.
 */
async function repoEnvironments(repo: RepoFollowing, options: DaemonOptions): Promise<DaemonEnvironment[] | undefined> {
  const project = await repo.projectConfig(options.signal);
  if (!project || project.diagnostics.length > 0) return undefined;
  // Refused (targets the operator did not allow, too many environments): no environment of it gets a target, a
  // token or a store; the follower reports the commit as refused in /status and a later allowed commit takes effect
  // at the next start.
  if (project.refused.length > 0) {
    options.log.warn({ refused: project.refused }, 'the newest commit is refused (see refused): none of its environments is started');
    return undefined;
  }
  const declared = declaredEnvironments(project.config);
  if (declared.length === 0) return undefined;
  return declared.map((environment) => ({
    environment,
    target: environment.target.kind === 'remote' ? { kind: 'remote', baseUrl: environment.target.url, token: options.tokenFor?.(environment) ?? '', platform: options.platformFor?.(environment), noPlatform: options.noPlatformFor?.(environment) } : { kind: 'embedded' },
  }));
}

function startLoop(options: DaemonOptions, loop: LoopParts): Loop {
  let firstFullPassEnded: () => void = () => undefined;
  const firstFullPass = new Promise<void>((done) => (firstFullPassEnded = done));
  const queue = createLoopQueue(options, loop, firstFullPassEnded);
  return {
    name: loop.name,
    target: loop.target,
    status: loop.status,
    queue,
    resync: setInterval(() => queue.requestFull('resync'), options.resyncMs),
    poller: startPollerAfter(firstFullPass, options, loop.target, loop.status),
  };
}

/** `onFullPassEnd` runs after every full pass, whether it succeeded or failed. */
function createLoopQueue(options: DaemonOptions, loop: LoopParts, onFullPassEnd: () => void): ReconcileQueue {
  const log = options.log.child({ component: 'reconcile' });
  const { cwd, concurrency, signal } = options;
  const { name, target, status, source } = loop;
  const runPass = createReconcilePass({
    planContext: { dir: loop.dir, cwd, api: target.client, targetLabel: target.label, log, concurrency, signal, cache: createDesiredCache(), git: 'unread' },
    status,
    log,
    selfHeal: options.selfHeal,
    prune: options.prune,
    // Following a repository, --max-delete is a ceiling, not a value that replaces the commit's maxDelete (the pull
    // request's plan, reading the same dashcd.yaml, shows what a pass deletes): a commit asking for more is refused
    // (repository-limits.ts), and one that sets none gets the default only up to it.
    maxDelete: options.repo ? { atMost: repositoryLimits(options).maxDelete } : options.maxDelete,
    commit: source ? undefined : new FolderCommit({ dir: resolve(cwd, loop.dir), record: (git) => status.recordGit(git), signal }),
    filesWritten: () => target.filesWritten(),
    ...(options.passChunkFiles !== undefined ? { passChunkFiles: options.passChunkFiles } : {}),
    ...(source ? { source } : {}),
    ...(name !== undefined ? { plan: (ctx, planOptions) => planEnvironment(name, ctx, planOptions) } : {}),
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

/** The banner's target: the one target, or each environment's. The API shown is the first embedded one. */
function readyInfo(endpoint: Endpoint, loops: readonly Loop[]): DaemonReady {
  const target = loops.map((loop) => (loop.name === undefined ? loop.target.label : `${loop.name} → ${loop.target.label}`)).join(', ');
  const api = loops.find((loop) => loop.target.api)?.target.api;
  return { statusUrl: endpoint.statusUrl, target, ...(api ? { api } : {}) };
}

/** Lets the running passes finish; past the grace period their requests and retry waits are aborted. */
async function finishQueues(queues: readonly ReconcileQueue[], requests: AbortController, graceMs: number, log: Logger): Promise<void> {
  const grace = setTimeout(() => {
    log.warn({ graceMs }, 'a reconcile pass is still running after the grace period; aborting its requests');
    requests.abort(new Error('daemon shutdown'));
  }, graceMs);
  try {
    await Promise.all(queues.map((queue) => queue.stop()));
  } finally {
    clearTimeout(grace);
    requests.abort(new Error('daemon shutdown'));
  }
}
