import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createApiClient, type ApiClient } from '../client/api-client.js';
import { environmentLabel } from '../client/environment-label.js';
import { startApiServer } from '../server/api-server.js';
import type { DaemonOptions, DaemonReady } from './daemon.js';
import { handleStatusRequest, type DaemonStatus } from './daemon-status.js';

/** What the daemon reconciles into and archives from, and where its status endpoints are. */
export interface Endpoint {
  client: ApiClient;
  /** Human-readable target (never a token). */
  label: string;
  /** The archive's environment folder. */
  env: string;
  statusUrl: string;
  api?: DaemonReady['api'];
  close(): Promise<void>;
}

/**
 * A remote target with the status endpoints on their own `listen` server, or the embedded API on `listen` with the
 * status endpoints beside it. The client's requests and retry waits stop when `requests` aborts.
 */
export async function openEndpoint(
  options: Pick<DaemonOptions, 'target' | 'listen' | 'cwd' | 'dataDir' | 'simulateEvents' | 'retry' | 'log'>,
  status: DaemonStatus,
  requests: AbortSignal,
  /** More routes beside the status endpoints (`/hooks/git`); each answers false for a path that is not its own. */
  routes: readonly ((req: IncomingMessage, res: ServerResponse) => boolean)[] = [],
): Promise<Endpoint> {
  const statusHandler = (req: IncomingMessage, res: ServerResponse): boolean => handleStatusRequest(status, req, res) || routes.some((route) => route(req, res));
  const clientOptions = { log: options.log.child({ component: 'client' }), signal: requests, ...(options.retry ? { retry: options.retry } : {}) };
  if (options.target) {
    const server = await listenStatusOnly(options.listen, statusHandler);
    const client = createApiClient({ ...options.target, ...clientOptions });
    const { port } = server.address() as AddressInfo;
    return {
      client,
      label: options.target.baseUrl,
      env: environmentLabel(options.target.baseUrl),
      statusUrl: `http://${hostForUrl(options.listen.host)}:${port}`,
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
  const client = createApiClient({ baseUrl: api.envUrl, token, ...clientOptions });
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

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

