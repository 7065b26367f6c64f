import type { IncomingMessage, ServerResponse } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveConsoleSource } from '../../src/cli/serve-console.js';
import { createConsoleHandler, LOGIN_BODY_LIMIT } from '../../src/console/console-handler.js';
import { consoleTokens } from '../../src/console/console-tokens.js';
import { silentLogger } from '../../src/lib/logger.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import type { TokenStore } from '../../src/server/auth/token-store.js';
import { api, startTestServer, type TestServer } from '../helpers/server.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * The console mounted on the real API server as `serve` mounts it (its extra handler, the data dir's token stores),
 * with environments dev and prod. `host` is the address the console believes it listens on: 0.0.0.0 asks for
 * tokens, 127.0.0.1 is open (the server itself listens on 127.0.0.1 either way).
 */
let server: TestServer;
let mounted: Handler | undefined;
function mount(host: string): void {
  mounted = createConsoleHandler(serveConsoleSource(server.server, silentLogger()), { host, tokens: consoleTokens(server.server.environments) });
}
function store(env: string): TokenStore {
  const environment = server.server.environments.get(EnvironmentId.parse(env));
  if (!environment) throw new Error(`no environment ${env}`);
  return environment.tokens;
}

async function page(path: string, headers: Record<string, string> = {}): Promise<{ status: number; html: string; headers: Headers }> {
  const response = await fetch(`${server.baseUrl}${path}`, { redirect: 'manual', headers });
  return { status: response.status, html: await response.text(), headers: response.headers };
}
const bearer = (token: string): Record<string, string> => ({ authorization: `Api-Token ${token}` });

async function signIn(token: string): Promise<string> {
  const response = await fetch(`${server.baseUrl}/ui/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
  expect(response.status).toBe(303);
  return (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
}

/** Writes `head` and then `body` (in chunks) on a raw socket; resolves with what came back when the server closed it. */
function rawExchange(head: string, body: { chunk: Buffer; chunks: number }): Promise<{ response: string; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.server.port, '127.0.0.1');
    let response = '';
    let sent = 0;
    let closed = false;
    socket.on('data', (data) => (response += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
      resolve({ response, sent });
    });
    socket.write(head);
    const pump = (): void => {
      while (!closed && sent < body.chunks) {
        sent++;
        if (!socket.write(body.chunk)) return void socket.once('drain', pump);
      }
      if (!closed) socket.end();
    };
    pump();
    setTimeout(() => reject(new Error(`no close after ${sent} chunks; got ${response.slice(0, 80)}`)), 20_000).unref();
  });
}

beforeAll(async () => {
  server = await startTestServer({ extraHandler: (req, res) => mounted?.(req, res) ?? false });
  for (const env of ['dev', 'prod']) await server.server.environments.ensure(EnvironmentId.parse(env));
});
afterAll(async () => server.close());

describe('console on a network address: each page authorised as the API authorises its data', () => {
  let devRead: string;
  let prodExport: string;
  beforeAll(async () => {
    mount('0.0.0.0');
    devRead = (await store('dev').create({ name: 'dev-read', scopes: ['ReadConfig'] })).token;
    prodExport = (await store('prod').create({ name: 'prod-export', scopes: ['DataExport'] })).token;
  });

  it('a dev ReadConfig token reads dev dashboards only: prod is 401 as on the API, dev events 403 as on the API', async () => {
    expect((await api(`${server.baseUrl}/e/prod/api/config/v1/dashboards`, { token: devRead })).status).toBe(401);
    expect((await page('/ui/e/prod', bearer(devRead))).status).toBe(401);
    expect((await page('/ui/e/prod/dashboard?key=x', bearer(devRead))).status).toBe(401);
    expect((await page('/ui/e/prod/events', bearer(devRead))).status).toBe(401);
    expect((await api(`${server.baseUrl}/e/dev/api/v1/events`, { token: devRead })).status).toBe(403);
    expect((await page('/ui/e/dev/events', bearer(devRead))).status).toBe(403);
    expect((await page('/ui/e/dev', bearer(devRead))).status).toBe(200);
    const home = await page('/ui', bearer(devRead));
    expect(home.status).toBe(200);
    expect([...home.html.matchAll(/data-env="([^"]+)"/g)].map((m) => m[1])).toEqual(['dev']);
  });

  it('a prod DataExport token reads prod events only, through its header or its session alike', async () => {
    const session = { cookie: await signIn(prodExport) };
    for (const headers of [bearer(prodExport), session]) {
      expect((await page('/ui/e/prod/events', headers)).status).toBe(200);
      expect((await page('/ui/e/prod', headers)).status).toBe(403);
      expect((await page('/ui/e/dev/events', headers)).status).toBe(401);
      expect([...(await page('/ui', headers)).html.matchAll(/data-env="/g)]).toHaveLength(0);
    }
  });

  it('a sign-in posted by another site’s page is refused (403, no cookie); the console’s own form, and a client that is no browser, sign in', async () => {
    // Login CSRF: a page elsewhere posting its own token had the browser signed in as that token.
    const { token } = await store('dev').create({ name: 'csrf', scopes: ['ReadConfig'] });
    const post = (headers: Record<string, string>): Promise<Response> =>
      fetch(`${server.baseUrl}/ui/login`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams({ token }).toString() });
    const host = new URL(server.baseUrl).host;
    const crossSite: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://attacker.example' }, { origin: 'null' }, { origin: `http://${host}`, 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'cross-site', origin: 'https://attacker.example' }];
    for (const headers of crossSite) {
      const refused = await post(headers);
      expect(refused.status, JSON.stringify(headers)).toBe(403);
      expect(refused.headers.get('set-cookie')).toBeNull();
      expect(await refused.text()).toContain('Sign in from this console’s own page');
    }
    // Behind a TLS-terminating proxy that passes its upstream's address as Host, the page's Origin is the proxy's name:
    // the browser's Sec-Fetch-Site decides (every browser sign-in there was refused).
    const ownPage: Record<string, string>[] = [{ origin: `http://${host}`, 'sec-fetch-site': 'same-origin' }, { origin: `http://${host}` }, {}, { origin: 'https://console.example.com', 'sec-fetch-site': 'same-origin' }];
    for (const headers of ownPage) {
      const taken = await post(headers);
      expect(taken.status, JSON.stringify(headers)).toBe(303);
      expect(taken.headers.get('set-cookie')).toMatch(/^dashcd_console=/);
    }
  });

  it('a sign-in whose Origin names this console’s host in other letter case is its own page’s (host names have no case)', async () => {
    const { token } = await store('dev').create({ name: 'case', scopes: ['ReadConfig'] });
    const { port } = new URL(server.baseUrl);
    const body = new URLSearchParams({ token }).toString();
    const status = (headers: Record<string, string>): Promise<number | undefined> =>
      new Promise((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port, path: '/ui/login', method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length), ...headers } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await status({ host: `LocalHost:${port}`, origin: `http://localhost:${port}` })).toBe(303);
    expect(await status({ host: `LocalHost:${port}`, origin: `http://elsewhere:${port}` })).toBe(403);
  });

  it('a session ends with its token: revoked, the cookie gets the sign-in page', async () => {
    const { token, info } = await store('dev').create({ name: 'to-revoke', scopes: ['ReadConfig'] });
    const cookie = await signIn(token);
    expect((await page('/ui/e/dev', { cookie })).status).toBe(200);
    expect(await store('dev').revoke(info.id)).toBe(true);
    const after = await page('/ui/e/dev', { cookie });
    expect(after.status).toBe(401);
    expect(after.html).toContain('action="/ui/login"');
    expect((await page('/ui', { cookie })).status).toBe(401);
  });

  it('a sign-in body past 8 KiB is refused with 413 unread, by its Content-Length or as it streams, and the connection closed', async () => {
    const big = await fetch(`${server.baseUrl}/ui/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${'x'.repeat(LOGIN_BODY_LIMIT)}` });
    expect(big.status).toBe(413);
    const chunk = Buffer.alloc(64 * 1024, 'x');
    // 17 GB announced: answered at once; the server closes the connection long before the client could send it.
    const announced = await rawExchange(`POST /ui/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 17800000000\r\n\r\n`, { chunk, chunks: 300_000 });
    expect(announced.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(announced.sent).toBeLessThan(2_000);
    const streamed = await rawExchange(`POST /ui/login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n`, { chunk: Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]), chunks: 300_000 });
    expect(streamed.response).toMatch(/^HTTP\/1\.1 413 /);
    expect(streamed.sent).toBeLessThan(2_000);
    // The server is fine afterwards.
    expect((await page('/ui', bearer(devRead))).status).toBe(200);
  });

  it('a malformed percent-encoding is a 400, not a 502', async () => {
    const malformed = await page('/ui/e/%E0%A4%A', bearer(devRead));
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('malformed percent-encoding');
  });
});

describe('console on loopback: open, but only under its own names (DNS rebinding)', () => {
  beforeAll(() => mount('127.0.0.1'));

  function withHost(host: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: server.server.port, path: '/ui/e/local', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('answers localhost, 127.0.0.1 and [::1] on its port without a token; another name or port is 421', async () => {
    const port = server.server.port;
    expect(await withHost(`localhost:${port}`)).toBe(200);
    expect(await withHost(`127.0.0.1:${port}`)).toBe(200);
    expect(await withHost(`[::1]:${port}`)).toBe(200);
    expect(await withHost(`rebind.attacker.example:${port}`)).toBe(421);
    expect(await withHost(`localhost:${port + 1}`)).toBe(421);
    expect(await withHost('localhost')).toBe(421);
  });

  it('a URL that does not parse is a 400 and the next request is answered', async () => {
    expect((await page('/ui/e/%E0%A4%A')).status).toBe(400);
    expect((await page('/ui')).status).toBe(200);
  });
});

describe('console on a network address without a token store (a daemon with a remote target)', () => {
  beforeAll(() => {
    mounted = createConsoleHandler(serveConsoleSource(server.server, silentLogger()), { host: '0.0.0.0' });
  });

  it('answers 403 to everyone, a valid token included', async () => {
    const { token } = await store('local').create({ name: 'reader', scopes: ['ReadConfig', 'DataExport'] });
    for (const path of ['/ui', '/ui/e/local', '/ui/e/local/events']) expect((await page(path, bearer(token))).status, path).toBe(403);
  });
});
