import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { silentLogger, type Logger } from '../../src/lib/logger.js';
import { ErrorEnvelope } from '../../src/schema/error-envelope.js';
import type { Scope } from '../../src/schema/scopes.js';
import { DEFAULT_ENVIRONMENT, type EnvironmentId } from '../../src/schema/ids.js';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/create-server.js';
import type { EventStore } from '../../src/server/feed/event-store.js';
import { eventsServerOptions } from '../../src/server/routes/events.js';

export interface TestServer {
  /** Environment root of `local`, e.g. `http://127.0.0.1:PORT/e/local`. */
  readonly url: string;
  /** `http://127.0.0.1:PORT`. */
  readonly baseUrl: string;
  /** A stored token of `local` with the requested scopes. */
  readonly token: string;
  readonly dataDir: string;
  readonly server: RunningServer<EventStore>;
  /** Another token of `env` (default `local`) with exactly these scopes (may be none), in memory only. */
  tokenFor(scopes: Scope[], env?: EnvironmentId): string;
  /** Closes the server and deletes the data dir. */
  close(): Promise<void>;
}

export interface TestServerOptions extends Partial<Omit<ServerOptions<EventStore>, 'dataDir'>> {
  readonly scopes?: Scope[];
  /** Serve the events feed too (as `dashcd serve` does); default true. */
  readonly events?: boolean;
  readonly dataDir?: string;
  /** Keep the data dir after close (e.g. to restart on it). */
  readonly keepDataDir?: boolean;
}

/** Starts the real server on 127.0.0.1:0 over a fresh temp data dir, with a token of the given scopes. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const { scopes = ['ReadConfig', 'WriteConfig'], keepDataDir = false, events = true, ...rest } = options;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'dashcd-server-')));
  const log: Logger = options.log ?? silentLogger();
  const feed = events ? eventsServerOptions({ log }) : { routeFactories: [] };
  const server = await startServer<EventStore>({
    ...feed,
    ...rest,
    routeFactories: [...feed.routeFactories, ...(rest.routeFactories ?? [])],
    dataDir,
    log,
    host: '127.0.0.1',
    port: 0,
  });
  const tokensOf = (env: EnvironmentId) => {
    const environment = server.environments.get(env);
    if (!environment) throw new Error(`environment ${env} is not open`);
    return environment.tokens;
  };
  const { token } = await tokensOf(DEFAULT_ENVIRONMENT).create({ name: 'test', scopes });
  return {
    url: server.envUrl(DEFAULT_ENVIRONMENT),
    baseUrl: server.url,
    token,
    dataDir,
    server,
    tokenFor: (tokenScopes, env = DEFAULT_ENVIRONMENT) => tokensOf(env).addEphemeral(tokenScopes, 'test-extra'),
    async close() {
      await server.close();
      if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON (undefined when empty). */
  readonly json: unknown;
}

export interface ApiRequest {
  readonly method?: string;
  /** Serialised as JSON unless it is a string (sent as-is). */
  readonly body?: unknown;
  readonly token?: string;
  readonly headers?: Record<string, string>;
}

/** One HTTP request with `Authorization: Api-Token` and a JSON content type when there is a body. */
export async function api(url: string, { method = 'GET', body, token, headers = {} }: ApiRequest = {}): Promise<ApiResponse> {
  const allHeaders: Record<string, string> = { ...headers };
  if (token !== undefined) allHeaders['authorization'] ??= `Api-Token ${token}`;
  if (body !== undefined) allHeaders['content-type'] ??= 'application/json';
  const response = await fetch(url, {
    method,
    headers: allHeaders,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function dashboardsUrl(server: Pick<TestServer, 'url'>, suffix = ''): string {
  return `${server.url}/api/config/v1/dashboards${suffix}`;
}

export function minimalDashboard(name = 'minimal', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { dashboardMetadata: { name, owner: 'tester' }, tiles: [], ...extra };
}

/** Asserts a response is the ErrorEnvelope with this status (and message, if given), as JSON with charset. */
export function expectEnvelope(response: ApiResponse, status: number, message?: string | RegExp): ErrorEnvelope {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const envelope = ErrorEnvelope.parse(response.json);
  expect(envelope.error.code).toBe(status);
  if (typeof message === 'string') expect(envelope.error.message).toBe(message);
  else if (message) expect(envelope.error.message).toMatch(message);
  return envelope;
}

/**
 * A request whose path is sent byte for byte (fetch normalises `%2e%2e` and `..` away before the server sees them).
 */
export function rawApi(
  baseUrl: string,
  path: string,
  { method = 'GET', headers = {}, body }: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<ApiResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') responseHeaders.set(name, value);
        let json: unknown;
        try {
          json = text === '' ? undefined : (JSON.parse(text) as unknown);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
