import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { systemClock, type Clock } from '../lib/clock.js';
import type { FsLayer } from '../lib/fs-layer.js';
import { redactText, type Logger } from '../lib/logger.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../schema/ids.js';
import { PlatformScope, Scope } from '../schema/scopes.js';
import { acquireOwnership, DataDirLockedError, dataDirLayout, readOwner, type DataDirLayout, type Ownership } from './data-dir.js';
import { openEnvironments, type EnvironmentRegistry, type EnvironmentService } from './environments.js';
import { descriptorBudget, limitConnections } from './http/descriptor-budget.js';
import { BODY_LIMIT_BYTES } from './http/read-body.js';
import { HttpError } from './http/http-error.js';
import { answerClientError, rawErrorResponse, sendError } from './http/respond.js';
import { createRequestHandler, type RequestListener } from './http/request-handler.js';
import type { Route } from './http/route.js';
import type { RouteFactory, ServerContext } from './route-factory.js';
import { createAdminApi } from './routes/admin.js';
import { createDashboardBodyPool, type DashboardBodyPool } from './routes/dashboard-body-pool.js';
import { createDashboardRoutes } from './routes/dashboards.js';
import { eventsServerOptions } from './routes/events.js';
import type { DocumentApi } from './documents/document-api.js';
import { lazyDocumentApi } from './documents/lazy-document-api.js';
import { createInstallerRoutes } from './routes/installer.js';
import { errorMessage } from '../lib/error-message.js';

export interface ServerTimeouts {
  /** Time allowed for the request headers (slowloris guard). */
  readonly headersMs?: number;
  /** Time allowed for the whole request, body included. */
  readonly requestMs?: number;
  /** Idle keep-alive connections are closed after this long. */
  readonly keepAliveMs?: number;
  /** How long close() waits for in-flight requests before cutting connections. */
  readonly shutdownGraceMs?: number;
}

export interface ServerOptions<E extends EnvironmentService = EnvironmentService> {
  readonly dataDir: string;
  readonly host?: string;
  readonly port?: number;
  readonly log: Logger;
  readonly clock?: Clock;
  readonly fs?: FsLayer;
  readonly randomUUID?: () => string;
  readonly timeouts?: ServerTimeouts;
  readonly bodyLimit?: number;
  /** Opens a per-environment service (the events store) alongside the dashboards. */
  readonly openEvents?: (env: EnvironmentId, dir: string) => Promise<E>;
  /** Routes beyond dashboards and installer, e.g. the events feed. */
  readonly routeFactories?: ReadonlyArray<RouteFactory<E>>;
  /**
   * Consulted first for every request (e.g. the daemon's /healthz, /status, /metrics on the same port); returns true
   * when it answered. Everything else goes through the API's routing, auth and envelopes.
   */
  readonly extraHandler?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** False for a command's own in-process server (see OwnerInfo.lasting); default true. */
  readonly lasting?: boolean;
  /** Per environment, GET bodies kept uncompressed, in bytes (served-bytes.ts); default DEFAULT_HOT_BYTES. */
  readonly hotBytes?: number;
  /**
   * Threads that parse, validate and serialise dashboard bodies (dashboard-body-pool.ts). Default 0, on the main
   * thread: the daemon's and a command's own server spend the process's memory (each worker holds ~35 MB); `serve`
   * asks for defaultBodyWorkers().
   */
  readonly bodyWorkers?: number;
  /** Open (and create) `local` at start even when it is not on disk; default true (EnvironmentRegistryOptions). */
  readonly openDefault?: boolean;
}

export interface RunningServer<E extends EnvironmentService = EnvironmentService> {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly port: number;
  readonly environments: EnvironmentRegistry<E>;
  /** `…/e/{env}`, the root API clients are pointed at. */
  envUrl(env?: EnvironmentId): string;
  /** A platform token of an open environment for the Document service, in memory until this process stops. */
  addPlatformToken(env: EnvironmentId, scopes: readonly PlatformScope[], subject: string): Promise<string>;
  /** Resolves once every acknowledged document write is in its record file. */
  documentsFlushed(): Promise<void>;
  /** Stops accepting, lets in-flight requests and writes finish, closes the stores, releases the data dir. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUTS = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, shutdownGraceMs: 10_000 };

/** Takes ownership of the data dir, opens every environment and serves the API until close(). */
export async function startServer<E extends EnvironmentService = EnvironmentService>(
  options: ServerOptions<E>,
): Promise<RunningServer<E>> {
  const { dataDir, log, clock = systemClock } = options;
  await refuseBeforeCreating(dataDir, options.host ?? '127.0.0.1', options.port ?? 8080);
  const ownership = await acquireOwnership(dataDir, { lasting: options.lasting ?? true });
  let environments: EnvironmentRegistry<E> | undefined;
  let documents: DocumentApi | undefined;
  const bodies = createDashboardBodyPool({ workers: options.bodyWorkers, log });
  try {
    const layout = dataDirLayout(dataDir);
    environments = await openEnvironments<E>({ ...options, layout, log, clock });
    const bodyLimit = options.bodyLimit ?? BODY_LIMIT_BYTES;
    documents = lazyDocumentApi({ environments, layout, clock, log: log.child({ component: 'documents' }), bodyLimit });
    const handler = buildHandler({ ...options, layout, clock, environments, bodies, documents, adminKey: ownership.adminKey });
    const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    const server = await listen(handler, options.host ?? '127.0.0.1', options.port ?? 8080, { timeouts, bodyLimit, log });
    return await running(server, { environments, bodies, documents }, ownership, { log, timeouts });
  } catch (error) {
    await bodies.close();
    await documents?.close();
    await environments?.close();
    await ownership.release();
    throw error;
  }
}

/**
 * The start-up failures a user meets most (a second `serve` or daemon on the same data dir or port, a host that is
 * not this machine's) are found before anything is created, so a refused start leaves no data dir behind. Taking the
 * data dir and listening still decide: these are only the early, friendlier answers. The owner first, since its
 * message says where it serves.
 */
export async function refuseBeforeCreating(dataDir: string, host: string, port: number): Promise<void> {
  const owner = await readOwner(dataDir);
  if (owner) throw new DataDirLockedError(dataDir, owner);
  // Port 0 too: the host may not resolve, or not be this machine's.
  const probe = createNetServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** What a session of the embedded API may do: every classic scope (the API server's and the embedded target's alike)… */
export const SESSION_SCOPES: readonly Scope[] = Scope.options;
/** …and every platform scope, for the Document service. */
export const SESSION_PLATFORM_SCOPES: readonly PlatformScope[] = PlatformScope.options;
/**
 * The owner of what sessions create in the Document service. One subject for every session and run: a document made
 * private (the default) by one run stays the next run's to change and delete.
 */
export const SESSION_SUBJECT = 'dashcd-session';

/** A session's credentials for an open environment: a classic API token and a platform token, both in memory only. */
export interface SessionCredentials {
  token: string;
  platformToken: string;
}

export async function sessionCredentials(server: RunningServer, env: EnvironmentId, name: string): Promise<SessionCredentials> {
  const environment = await server.environments.ensure(env);
  return { token: environment.tokens.addEphemeral([...SESSION_SCOPES], name), platformToken: await server.addPlatformToken(env, SESSION_PLATFORM_SCOPES, SESSION_SUBJECT) };
}

/**
 * The reconciler's no-target mode: a private server (dashboards, events feed, Document service) on a free loopback
 * port, with credentials for this run only.
 */
export async function startEmbeddedServer({ dataDir, log }: { dataDir: string; log: Logger }): Promise<
  SessionCredentials & {
    url: string;
    /** Another environment of the same store (created if new), with credentials of its own: one server for all of them. */
    session(env: EnvironmentId): Promise<SessionCredentials & { url: string }>;
    close(): Promise<void>;
  }
> {
  const server = await startServer({ dataDir, log, host: '127.0.0.1', port: 0, lasting: false, ...eventsServerOptions({ log }) });
  const session = async (env: EnvironmentId): Promise<SessionCredentials & { url: string }> => ({ url: server.envUrl(env), ...(await sessionCredentials(server, env, 'embedded')) });
  try {
    return { ...(await session(DEFAULT_ENVIRONMENT)), session, close: () => server.close() };
  } catch (error) {
    await server.close();
    throw error;
  }
}

function buildHandler<E extends EnvironmentService>(
  options: ServerOptions<E> & { layout: DataDirLayout; clock: Clock; environments: EnvironmentRegistry<E>; bodies: DashboardBodyPool; documents: DocumentApi; adminKey: string },
): RequestListener {
  const { environments, layout, clock, log, documents } = options;
  const context: ServerContext<E> = { environments, layout, clock, log };
  const routes: Route[] = [
    ...createDashboardRoutes({ dashboards: (env) => environments.get(env)?.dashboards, bodies: options.bodies }),
    ...createInstallerRoutes({ installerFile: layout.installerFile }),
    ...(options.routeFactories ?? []).flatMap((factory) => factory(context)),
  ];
  const platformToken = (env: EnvironmentId): Promise<string> => documents.addEphemeralToken(env, SESSION_PLATFORM_SCOPES, SESSION_SUBJECT);
  const admin = createAdminApi({ environments, adminKey: options.adminKey, log: log.child({ component: 'admin' }), platformToken });
  const classic = createRequestHandler({ environments, routes, admin, log, clock, bodyLimit: options.bodyLimit });
  const api: RequestListener = (req, res) => (documents.handles(req.url ?? '') ? documents.listener(req, res) : classic(req, res));
  const { extraHandler } = options;
  return extraHandler ? (req, res) => extraHandler(req, res) || api(req, res) : api;
}

/**
 * Every listener of ours listens through this: request timeouts, CONNECT and malformed requests answered, a
 * descriptor budget (past it, a 503 with Retry-After instead of a dropped connection) and a guarded handler. The API
 * server's, and the daemon's status-only one (which takes webhooks from the internet).
 */
export async function listen(
  handler: RequestListener,
  host: string,
  port: number,
  { timeouts = DEFAULT_TIMEOUTS, bodyLimit = BODY_LIMIT_BYTES, log }: { timeouts?: Required<ServerTimeouts>; bodyLimit?: number; log: Logger },
): Promise<Server> {
  const budget = descriptorBudget();
  const server = createHttpServer({
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    // The timeouts above are enforced by a periodic sweep; Node's default period (30 s) would dwarf them.
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    // Node's own 400 for a missing Host has no body: guardedListener answers it with the envelope instead.
    requireHostHeader: false,
  });
  server.on('clientError', answerClientError);
  refuseConnect(server);
  // Node's own 417 has no body either.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    sendError(res, new HttpError(417, 'Expectation failed: the only expectation served is 100-continue.'), { connection: 'close' });
  });
  // `Expect: 100-continue` (curl does it above 1 kB): invite the body only when it may be read, so an oversized one is
  // refused with 413 before the client sends a byte of it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (!(Number(req.headers['content-length']) > bodyLimit)) res.writeContinue();
    server.emit('request', req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: budget.backlog }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const refused = limitConnections(server, budget, (error) => log.warn({ err: error.message }, 'accepting a connection failed; the server goes on'));
  trackInFlight(server, guardedListener(handler, log), refused, timeouts.requestMs);
  return server;
}

/**
 * `handler`, with a synchronous throw (a bug: handlers answer bad input themselves) turned into a logged 500: one
 * request must never stop the process. For every listener of ours: the API's (its extra handler included) and the
 * daemon's status-only one.
 */
function guardedListener(handler: RequestListener, log: Logger): RequestListener {
  return (req, res) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      sendError(res, new HttpError(400, 'Missing Host header: an HTTP/1.1 request must have one.'), { connection: 'close' });
      return;
    }
    try {
      handler(req, res);
    } catch (error) {
      log.error({ err: errorMessage(error), method: req.method, url: redactText(req.url ?? '') }, 'request handler threw; answered 500');
      if (res.headersSent) res.destroy();
      else sendError(res, new HttpError(500, 'Internal error: the request could not be handled.'), { connection: 'close' });
    }
  };
}

const CONNECT_ALLOW = 'GET, HEAD, POST, PUT, DELETE';

/** CONNECT is no method of ours: answered 405, where Node would drop the connection without a word. */
function refuseConnect(server: Server): void {
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse(405, `Method not allowed here; allowed: ${CONNECT_ALLOW}.`, `allow: ${CONNECT_ALLOW}\r\n`));
  });
}

/**
 * Responses one connection may owe (pipelined requests still being answered). Node stops reading a connection whose
 * client does not take its responses, but not one whose responses are still being prepared: 100,000 pipelined
 * `GET /ui` in one write, each awaiting the console's first read, held 2.6 GB (and once ran `serve` out of memory).
 * The first request past the bound is answered 503 in its turn, after every response owed before it (a pipelined
 * write's client still learns it was done), with `connection: close`; the connection is read no further and the
 * requests after it are never handled. No client of dashcd pipelines; a browser never does.
 */
export const MAX_OWED_RESPONSES = 64;

/**
 * Reads the connection no further. `socket.pause()` alone does not hold: Node's HTTP server resumes a socket as each
 * request ends unless its own `_paused` mark is set (its `readStart`), and sets that mark itself only for a client
 * that does not read. (Node 20's `_http_incoming.js` and `_http_server.js`.)
 */
function stopReading(socket: Socket, deadlineMs: number): void {
  const paused = socket as Socket & { _paused?: boolean; [DEADLINE]?: true };
  paused._paused = true;
  socket.pause();
  // Read no further, it would not see its client hang up: a response ahead of the 503 that never finished held the
  // connection (and a descriptor) for good. As long as a request may take, then it goes.
  if (paused[DEADLINE]) return;
  paused[DEADLINE] = true;
  setTimeout(() => socket.destroy(), deadlineMs).unref();
}

const DEADLINE = Symbol('deadline set');

/** What a connection owes (responses to requests read): kept on the socket. */
const OWED = Symbol('owed responses');
type OwingSocket = Socket & { [OWED]?: number };
/** The connection a response is owed on, kept from its request: by its close, `req.socket` may be null. */
const OWED_ON = Symbol('owed on');
type OwedResponse = ServerResponse & { [OWED_ON]?: OwingSocket };

/** Requests that arrive while closing are still answered, but on a connection that is then closed. */
function trackInFlight(server: Server, handler: RequestListener, refused: (socket: Socket) => boolean, requestMs: number): void {
  let active = 0;
  // One listener shared by every response (`this` is the response): `once` would allocate a wrapper per request.
  // The count is a property of the socket, not a WeakMap entry: this runs twice per request of a GET at 40,000/s.
  const onClose = function (this: OwedResponse): void {
    active -= 1;
    if (active === 0 && !server.listening) server.closeIdleConnections();
    const socket = this[OWED_ON];
    if (socket !== undefined) socket[OWED] = (socket[OWED] ?? 1) - 1;
  };
  server.on('request', (req: IncomingMessage, res: OwedResponse) => {
    const socket: OwingSocket = req.socket;
    const owing = (socket[OWED] ?? 0) + 1;
    socket[OWED] = owing;
    // Past the bound: the first such request is the connection's last answer; what was read with it is never handled.
    // Paused again each time: Node reads on once the answers before it are written (its drain clears its mark).
    if (owing > MAX_OWED_RESPONSES + 1) {
      stopReading(socket, requestMs);
      return;
    }
    active += 1;
    res[OWED_ON] = socket;
    if (!server.listening) res.shouldKeepAlive = false;
    res.on('close', onClose);
    if (owing > MAX_OWED_RESPONSES) {
      stopReading(socket, requestMs);
      res.shouldKeepAlive = false;
      sendError(res, new HttpError(503, `More than ${MAX_OWED_RESPONSES} requests pipelined on one connection: this one and those after it were not handled; send them again.`), { connection: 'close', 'retry-after': '1' });
      return;
    }
    // Already answered 503 when it connected (descriptor-budget.ts): its request is read only to be dropped.
    if (!refused(req.socket)) handler(req, res);
  });
}

async function running<E extends EnvironmentService>(
  server: Server,
  { environments, bodies, documents }: { environments: EnvironmentRegistry<E>; bodies: DashboardBodyPool; documents: DocumentApi },
  ownership: Ownership,
  { log, timeouts }: { log: Logger; timeouts: Required<ServerTimeouts> },
): Promise<RunningServer<E>> {
  const { address, port, family } = server.address() as AddressInfo;
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), timeouts.shutdownGraceMs);
    await stopped;
    clearTimeout(grace);
    await bodies.close();
    await documents.close();
    await environments.close();
    await ownership.release();
    log.info({ url }, 'dashcd API stopped');
  };
  try {
    await ownership.publish(url);
  } catch (error) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw error;
  }
  // The environments the data dir held at start; others (a daemon's, one a token or write names) open when first used.
  log.info({ url, environmentsOnDisk: environments.ids() }, 'dashcd API listening');
  return {
    url,
    port,
    environments,
    envUrl: (env = DEFAULT_ENVIRONMENT) => `${url}/e/${env}`,
    addPlatformToken: (env, scopes, subject) => documents.addEphemeralToken(env, scopes, subject),
    documentsFlushed: () => documents.flushed(),
    close: () => (closing ??= close()),
  };
}
