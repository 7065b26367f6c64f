import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { createApiClient, withDocuments, withoutDocuments, type ApiClient } from '../client/api-client.js';
import { createDocumentsClient } from '../client/documents-api.js';
import { environmentLabel } from '../client/environment-label.js';
import type { TargetOrigin } from '../client/messages.js';
import type { ConsoleTokens } from '../console/console-access.js';
import { consoleTokens } from '../console/console-tokens.js';
import { isLoopback } from '../console/listener-host.js';
import { DEFAULT_ENVIRONMENT, EnvironmentId } from '../schema/ids.js';
import type { Logger } from '../lib/logger.js';
import { startApiServer } from '../server/api-server.js';
import { listen } from '../server/create-server.js';
import type { DaemonOptions, DaemonPlatform, DaemonReady } from './daemon-options.js';
import { handleStatusRequest, type StatusView } from './status-endpoints.js';
import { HttpError } from '../server/http/http-error.js';
import { sendError } from '../server/http/respond.js';

/** Where one reconcile loop writes and archives from. */
export interface LoopTarget {
  client: ApiClient;
  /** Human-readable target (never a token). */
  label: string;
  /** The archive's environment folder. */
  env: string;
  /** The embedded API environment, with a token valid until the daemon stops. */
  api?: DaemonReady['api'];
  /**
   * Resolves once every write the target has acknowledged is in its dashboard file: the embedded store writes files
   * behind its journal, holding their contents meanwhile. A remote target's files are not the daemon's memory.
   */
  filesWritten(): Promise<void>;
}

/** A remote target's `origin` is where its URL and token came from, as its errors name them (default DT_ENV_URL). */
export type TargetSpec =
  | { kind: 'remote'; baseUrl: string; token: string; platform?: DaemonPlatform | undefined; noPlatform?: string | undefined; origin?: TargetOrigin | undefined; env?: string }
  | { kind: 'embedded'; env?: string };

/** The daemon's listener (status endpoints, and the embedded API when it serves one) and the targets it opened. */
export interface Endpoint {
  statusUrl: string;
  /** A client for `spec`; with `env`, that is the archive folder's name (an environment's name). */
  target(spec: TargetSpec): Promise<LoopTarget>;
  /** With the embedded API: its token stores, which the console authorises with as the API does. */
  consoleTokens: ConsoleTokens | undefined;
  close(): Promise<void>;
}

type EndpointOptions = Pick<DaemonOptions, 'listen' | 'cwd' | 'dataDir' | 'simulateEvents' | 'retry' | 'log'> & {
  /** Serve the embedded API on `listen` (some loop reconciles into it); else only the status endpoints listen there. */
  embedded: boolean;
  /** Create the embedded API's default environment `local` (false: only if it is on disk already). */
  openDefault: boolean;
};

/**
 * The embedded API on `listen` with the status endpoints beside it, or the status endpoints on their own server.
 * The clients' requests and retry waits stop when `requests` aborts.
 */
export async function openEndpoint(
  options: EndpointOptions,
  status: StatusView,
  requests: AbortSignal,
  /** More routes beside the status endpoints (`/hooks/git`); each answers false for a path that is not its own. */
  routes: readonly ((req: IncomingMessage, res: ServerResponse) => boolean)[] = [],
): Promise<Endpoint> {
  const loopback = isLoopback(options.listen.host);
  const statusHandler = (req: IncomingMessage, res: ServerResponse): boolean => handleStatusRequest(status, req, res, loopback) || routes.some((route) => route(req, res));
  const clientOptions = { log: options.log.child({ component: 'client' }), signal: requests, ...(options.retry ? { retry: options.retry } : {}) };
  const api = options.embedded ? await startApiServer({ dataDir: resolve(options.cwd, options.dataDir), host: options.listen.host, port: options.listen.port, log: options.log, simulateEvents: options.simulateEvents, extraHandler: statusHandler, openDefault: options.openDefault }) : undefined;
  const server = api ? undefined : await listenStatusOnly(options.listen, statusHandler, options.log);
  const clients: ApiClient[] = [];
  // Platform dashboards and notebooks go through the target's Document service, with the same retries and abort.
  const connect = (baseUrl: string, token: string, platform: DaemonPlatform | undefined, origin?: TargetOrigin, noPlatform?: string): ApiClient => {
    const api = createApiClient({ baseUrl, token, origin, ...clientOptions });
    const client =
      platform === undefined
        ? noPlatform === undefined
          ? api
          : withoutDocuments(api, noPlatform)
        : withDocuments(api, createDocumentsClient({ platformUrl: platform.url, credential: platform.credential, ...(platform.origin ? { origin: platform.origin } : {}), ...clientOptions }));
    clients.push(client);
    return client;
  };
  return {
    statusUrl: api ? api.url : `http://${hostForUrl(options.listen.host)}:${(server?.address() as AddressInfo).port}`,
    async target(spec) {
      if (spec.kind === 'remote') return { client: connect(spec.baseUrl, spec.token, spec.platform, spec.origin, spec.noPlatform), label: spec.baseUrl, env: spec.env ?? environmentLabel(spec.baseUrl), filesWritten: () => Promise.resolve() };
      if (!api) throw new Error('unreachable: an embedded target needs the endpoint opened with embedded: true');
      const envId = spec.env === undefined ? DEFAULT_ENVIRONMENT : EnvironmentId.parse(spec.env);
      // The embedded Document service answers under each environment's own root, as its classic API does.
      const { envUrl, token, platformToken } = await api.session(envId);
      const filesWritten = async (): Promise<void> => api.server.environments.get(envId)?.dashboards.flushed();
      return { client: connect(envUrl, token, { url: envUrl, credential: { kind: 'platform-token', token: platformToken } }), label: envUrl, env: spec.env ?? 'local', api: { url: api.url, envUrl, token }, filesWritten };
    },
    consoleTokens: api ? consoleTokens(api.server.environments) : undefined,
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      if (api) await api.close();
      if (server) await new Promise<void>((done) => server.close(() => done()));
    },
  };
}


async function listenStatusOnly(
  address: { host: string; port: number },
  handler: (req: IncomingMessage, res: ServerResponse) => boolean,
  log: Logger,
): Promise<Server> {
  const notFound = (req: IncomingMessage, res: ServerResponse): void => {
    if (handler(req, res)) return;
    // Closes the connection when the request has a body (sendError): a declared 9 PB kept it for 30 s.
    sendError(res, new HttpError(404, 'Not found: this daemon serves /healthz, /status, /metrics and its console at /ui'));
  };
  return listen(notFound, address.host, address.port, { log });
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
