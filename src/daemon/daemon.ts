import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { followEvents } from '../archive/pull-events.js';
import type { Logger } from '../lib/logger.js';
import { startApiServer } from '../server/api-server.js';
import { DaemonStatus, handleStatusRequest } from './daemon-status.js';
import { createReconcilePass } from './reconcile-pass.js';
import { createReconcileQueue } from './reconcile-queue.js';
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
  prune: boolean;
  maxDelete: number;
  concurrency: number;
  simulateEvents: boolean;
  log: Logger;
  signal: AbortSignal;
  onReady?(info: DaemonReady): void;
}

export interface DaemonReady {
  statusUrl: string;
  /** Present when the daemon serves the embedded API. */
  api?: { url: string; envUrl: string; token: string };
  target: string;
}

interface Endpoint {
  client: ApiClient;
  label: string;
  env: string;
  statusUrl: string;
  api?: DaemonReady['api'];
  close(): Promise<void>;
}

/**
 * The composition root of `dashcd daemon`: target (remote, or the embedded API with the status endpoints on the same
 * port), one serialised reconcile queue fed by startup, the file watcher and the resync timer, and the events poller.
 * Resolves after a clean shutdown once `signal` aborts: watching and polling stop, in-flight writes finish, the
 * archive checkpoint is flushed.
 */
export async function runDaemon(options: DaemonOptions): Promise<void> {
  const { log, signal } = options;
  const status = new DaemonStatus();
  const endpoint = await openEndpoint(options, status);
  const dir = resolve(options.cwd, options.dir);
  const queue = createReconcileQueue({
    log: log.child({ component: 'reconcile' }),
    run: createReconcilePass({
      planContext: { dir, cwd: options.cwd, api: endpoint.client, targetLabel: endpoint.label, log: log.child({ component: 'reconcile' }), concurrency: options.concurrency, signal },
      status,
      log: log.child({ component: 'reconcile' }),
      selfHeal: options.selfHeal,
      prune: options.prune,
      maxDelete: options.maxDelete,
    }),
  });
  queue.requestFull('startup');
  const watcher = watchDashboards({
    dir,
    cwd: options.cwd,
    log,
    onChange: (files) => queue.requestFiles(files, 'file-changed'),
    onRemove: () => queue.requestFull('file-removed'),
  });
  const resync = setInterval(() => queue.requestFull('resync'), options.resyncMs);
  const poller = startPoller(options, endpoint, status);
  await watcher.ready;
  options.onReady?.({ statusUrl: endpoint.statusUrl, target: endpoint.label, ...(endpoint.api ? { api: endpoint.api } : {}) });

  await new Promise<void>((done) => (signal.aborted ? done() : signal.addEventListener('abort', () => done(), { once: true })));
  log.info({}, 'shutting down: stopping the watcher and poller, finishing in-flight writes');
  status.alive = false;
  clearInterval(resync);
  await watcher.close();
  await queue.stop();
  await poller;
  await endpoint.close();
  log.info({}, 'daemon stopped');
}

function startPoller(options: DaemonOptions, endpoint: Endpoint, status: DaemonStatus): Promise<unknown> {
  const log = options.log.child({ component: 'poller' });
  let archivedBefore = 0;
  return followEvents({
    fetchPage: (query, signal) => endpoint.client.events.fetchPageText(query, signal),
    archiveDir: resolve(options.cwd, options.archiveDir),
    env: endpoint.env,
    since: options.sinceMs,
    intervalMs: options.pollMs,
    signal: options.signal,
    log,
    onProgress: (progress) => {
      status.poller = {
        lastPollAt: new Date().toISOString(),
        ...(progress.watermark !== null ? { position: progress.watermark } : {}),
        ...(progress.lagMs !== null ? { lagSeconds: progress.lagMs / 1000 } : {}),
        eventsArchived: progress.written,
      };
      status.countEvents({}, Math.max(0, progress.written - archivedBefore));
      archivedBefore = progress.written;
      if (progress.lagMs !== null) status.setPollLag(progress.lagMs / 1000);
    },
  }).catch((error: unknown) => {
    status.poller = { ...status.poller, lastError: error instanceof Error ? error.message : String(error) };
    log.error({ err: error instanceof Error ? error.message : String(error) }, 'events poller stopped');
  });
}

async function openEndpoint(options: DaemonOptions, status: DaemonStatus): Promise<Endpoint> {
  const statusHandler = (req: IncomingMessage, res: ServerResponse): boolean => handleStatusRequest(status, req, res);
  if (options.target) {
    const client = createApiClient({ ...options.target, log: options.log, signal: options.signal });
    const server = await listenStatusOnly(options.listen, statusHandler);
    const { port } = server.address() as AddressInfo;
    return {
      client,
      label: options.target.baseUrl,
      env: environmentOf(options.target.baseUrl),
      statusUrl: `http://${options.listen.host}:${port}`,
      close: async () => {
        await client.close();
        await new Promise<void>((done) => server.close(() => done()));
      },
    };
  }
  const api = await startApiServer({
    dataDir: resolve(options.cwd, options.dataDir),
    host: options.listen.host,
    port: options.listen.port,
    log: options.log,
    simulateEvents: options.simulateEvents,
    extraHandler: statusHandler,
  });
  const token = api.createSessionToken();
  const client = createApiClient({ baseUrl: api.envUrl, token, log: options.log, signal: options.signal });
  return {
    client,
    label: api.envUrl,
    env: 'local',
    statusUrl: api.url,
    api: { url: api.url, envUrl: api.envUrl, token },
    close: async () => {
      await client.close();
      await api.close();
    },
  };
}

async function listenStatusOnly(
  listen: { host: string; port: number },
  handler: (req: IncomingMessage, res: ServerResponse) => boolean,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (handler(req, res)) return;
    res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: { code: 404, message: 'Not found: this daemon serves /healthz, /status and /metrics' } }));
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(listen.port, listen.host, () => done());
  });
  return server;
}

function environmentOf(baseUrl: string): string {
  const match = /\/e\/([^/]+)/.exec(new URL(baseUrl).pathname);
  return match?.[1] ?? new URL(baseUrl).hostname.split('.')[0] ?? 'remote';
}
