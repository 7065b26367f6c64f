import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsoleBusyError, type ConsoleEvent, type ConsoleSource, type DashboardsState, type EventFilter } from '../../../src/console/console-data.js';
import { createConsoleHandler, LOGIN_BODY_LIMIT } from '../../../src/console/console-handler.js';
import { consoleTokens } from '../../../src/console/console-tokens.js';
import { systemClock } from '../../../src/lib/clock.js';
import { openTokenStore, type TokenStore } from '../../../src/server/auth/token-store.js';

/**
 * The console handler on a real listener (127.0.0.1, any port) with the real token stores of two environments, dev
 * and prod, and a source holding fixed dashboards and events: the routing and authorisation of each page, which the
 * API decides the same way (ReadConfig for dashboards, DataExport for events, a token only in its own environment).
 */
const NOW = Date.UTC(2026, 10, 28, 10, 30);
const HOUR = 3_600_000;
const dashboards: Record<string, DashboardsState> = {
  dev: { kind: 'live', dashboards: [{ id: 'dev-1', name: 'Dev board', body: async () => ({ tiles: [] }) }] },
  prod: { kind: 'live', dashboards: [{ id: 'prod-1', name: 'Prod board', body: async () => ({ tiles: [] }) }] },
  staging: { kind: 'desired', changes: [{ action: 'unchanged', id: 's-1', name: 'Staging board', file: 'dashboards/s.yaml' }], problems: [], results: {}, revision: 'abc1234 on main' },
};
const windows: { env: string; from: number; to: number; filter: EventFilter }[] = [];
const source: ConsoleSource = {
  kind: 'live',
  environments: async () => [
    { name: 'dev', target: 'embedded /e/dev' },
    { name: 'prod', target: 'embedded /e/prod' },
    // Its daemon has not planned it yet: no dashboards known.
    { name: 'void', target: 'embedded /e/void' },
    { name: 'staging', target: 'embedded /e/staging' },
  ],
  dashboards: async (env) => (env === 'broken' ? Promise.reject(new Error('store <gone>')) : dashboards[env]),
  events: async (env, window, filter) => {
    windows.push({ env, ...window, filter });
    if (filter.text === 'busy') throw new ConsoleBusyError('The events archive is being read for other views; try again in a few seconds.');
    const event: ConsoleEvent = { id: `${env}-event`, type: 'ERROR_EVENT', start: window.to - HOUR, end: undefined, status: 'OPEN', entity: 'HOST-1' };
    return { events: [event], cut: false, types: [event.type] };
  },
};

let dir: string;
const stores = new Map<string, TokenStore>();
const tokens = consoleTokens({ ids: () => [...stores.keys()], lookup: (env) => (stores.has(env) ? { tokens: stores.get(env)! } : undefined) });
const servers: Server[] = [];
let remote: string;
let loopback: string;
let devRead: string;
let devExport: string;
let prodRead: string;

async function listen(host: string): Promise<string> {
  const handler = createConsoleHandler(source, { host, tokens, now: () => NOW });
  const server = createServer((req, res) => {
    if (!handler(req, res)) res.writeHead(418).end('not the console');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashcd-console-handler-'));
  for (const env of ['dev', 'prod']) stores.set(env, await openTokenStore({ file: join(dir, `${env}.json`), clock: systemClock }));
  devRead = (await stores.get('dev')!.create({ name: 'read', scopes: ['ReadConfig'] })).token;
  devExport = (await stores.get('dev')!.create({ name: 'export', scopes: ['DataExport'] })).token;
  prodRead = (await stores.get('prod')!.create({ name: 'read', scopes: ['ReadConfig'] })).token;
  remote = await listen('0.0.0.0');
  loopback = await listen('127.0.0.1');
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function get(base: string, path: string, init: RequestInit & { token?: string } = {}): Promise<{ status: number; html: string; headers: Headers }> {
  const headers = new Headers(init.headers);
  if (init.token !== undefined) headers.set('authorization', `Api-Token ${init.token}`);
  // A request the handler never answers fails fast (a mutation test of the handler meets many).
  const response = await fetch(`${base}${path}`, { ...init, headers, redirect: 'manual', signal: AbortSignal.timeout(5000) });
  return { status: response.status, html: await response.text(), headers: response.headers };
}
const status = async (path: string, token?: string): Promise<number> => (await get(remote, path, token === undefined ? {} : { token })).status;

describe('console pages: authorised per environment and scope', () => {
  it('leaves paths outside /ui to the next handler', async () => {
    for (const path of ['/', '/uix', '/api/ui', '/e/dev']) expect((await get(remote, path)).status, path).toBe(418);
    for (const path of ['/ui', '/ui/', '/ui?x=1']) expect((await get(remote, path)).status, path).toBe(401);
  });

  it('sends a browser that opens the server\'s address on to /ui; an API client asking for / is the next handler\'s', async () => {
    const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const base of [remote, loopback]) {
      for (const path of ['/', '/?from=bookmark']) {
        const browser = await get(base, path, { headers: html });
        expect([browser.status, browser.headers.get('location')], path).toEqual([302, '/ui']);
      }
      expect((await get(base, '/', { method: 'HEAD', headers: html })).status).toBe(302);
    }
    expect((await get(remote, '/', { headers: { accept: 'application/json' } })).status).toBe(418);
    expect((await get(remote, '/', { method: 'POST', headers: html })).status).toBe(418);
    expect((await get(remote, '/e/dev', { headers: html })).status).toBe(418);
    expect((await get(remote, '//', { headers: html })).status).toBe(418);
  });

  it('dashboards need ReadConfig of that environment: 401 without a token or with one of another, 403 without the scope', async () => {
    expect(await status('/ui/e/dev', devRead)).toBe(200);
    expect(await status('/ui/e/dev/', devRead)).toBe(200);
    expect(await status('/ui/e/dev/dashboard?key=dev-1', devRead)).toBe(200);
    expect(await status('/ui/e/prod', devRead)).toBe(401);
    expect(await status('/ui/e/prod/dashboard?key=prod-1', devRead)).toBe(401);
    expect(await status('/ui/e/dev', prodRead)).toBe(401);
    expect(await status('/ui/e/dev')).toBe(401);
    expect(await status('/ui/e/dev', devExport)).toBe(403);
    expect(await status('/ui/e/dev/dashboard?key=dev-1', devExport)).toBe(403);
  });

  it('events need DataExport of that environment', async () => {
    expect(await status('/ui/e/dev/events', devExport)).toBe(200);
    expect(await status('/ui/e/dev/events', devRead)).toBe(403);
    expect(await status('/ui/e/prod/events', devExport)).toBe(401);
    expect(await status('/ui/e/prod/events', prodRead)).toBe(403);
  });

  it('says which token and scope a refused page needs', async () => {
    const unauthorized = await get(remote, '/ui/e/prod/events', { token: devRead });
    expect(unauthorized.html).toContain('This page needs a token of environment prod with the DataExport scope.');
    expect(unauthorized.html).toContain('action="/ui/login"');
    expect((await get(remote, '/ui/e/prod', { token: devRead })).html).toContain('This page needs a token of environment prod with the ReadConfig scope.');
    const forbidden = await get(remote, '/ui/e/dev/events', { token: devRead });
    expect(forbidden.html).toContain('Your token lacks the DataExport scope in environment dev.');
    expect(forbidden.html).toContain('<title>Forbidden · dashcd</title>');
    expect((await get(remote, '/ui/e/dev', { token: devExport })).html).toContain('Your token lacks the ReadConfig scope in environment dev.');
  });

  it('the environments page lists only the environments the token may read dashboards of; anonymous gets the sign-in form', async () => {
    const envs = async (token?: string): Promise<string[]> => [...(await get(remote, '/ui', token === undefined ? {} : { token })).html.matchAll(/data-env="([^"]+)"/g)].map((m) => m[1] ?? '');
    expect(await envs(devRead)).toEqual(['dev']);
    expect(await envs(prodRead)).toEqual(['prod']);
    expect(await envs(devExport)).toEqual([]);
    const anonymous = await get(remote, '/ui');
    expect(anonymous.status).toBe(401);
    expect(anonymous.html).toContain('action="/ui/login"');
    expect(anonymous.html).not.toContain('class="status status-invalid"');
    expect(anonymous.html).toContain('<title>Sign in · dashcd</title>');
    expect(anonymous.html).toContain('for its events (the token is not kept; the browser gets a session cookie that ends with the token).</p>\n<form class="filter" method="post" action="/ui/login">');
    expect(await envs()).toEqual([]);
  });

  it('a loopback listener lets anyone read every page', async () => {
    const home = (await get(loopback, '/ui')).html;
    expect(home.match(/data-env="([^"]+)"/g)).toEqual(['data-env="dev"', 'data-env="prod"', 'data-env="void"', 'data-env="staging"']);
    // Counts per environment whose dashboards are known; none for one not planned yet.
    expect(home.match(/data-status="(\w+)" data-count="(\d+)"/g)).toEqual(['data-status="live" data-count="1"', 'data-status="live" data-count="1"', 'data-status="synced" data-count="1"']);
    expect((await get(loopback, '/ui/e/prod/events')).status).toBe(200);
  });
});

describe('console pages: routes', () => {
  it('answers unknown paths, environments and dashboards 404', async () => {
    for (const path of ['/ui/x', '/ui/x/dev', '/ui/e', '/ui/e/dev/dashboard/x', '/ui/e/dev/events/x', '/ui/e/dev/dashboard?key=nope', '/ui/e/dev/dashboard', '/ui/e/dev/other', '/ui/e/dev/other?key=dev-1']) {
      const answer = await get(loopback, path);
      expect([answer.status, answer.html.includes('<title>Not found · dashcd</title>')], path).toEqual([404, true]);
    }
    expect((await get(loopback, '/ui/e')).html).toContain('<p>No such page. <a href="/ui">Environments</a></p>');
    const missing = await get(loopback, '/ui/e/nowhere');
    expect(missing.status).toBe(404);
    expect(missing.html).toContain('No environment nowhere.');
    const noEvents = await get(loopback, '/ui/e/nowhere/events');
    expect([noEvents.status, noEvents.html.includes('No environment nowhere.')]).toEqual([404, true]);
  });

  it("shows the revision a daemon's environment was planned at", async () => {
    expect((await get(loopback, '/ui/e/staging')).html).toContain('<td data-label="Revision"><code>abc1234 on main</code></td>');
    expect((await get(loopback, '/ui/e/staging/dashboard?key=s-1')).html).toContain('revision <code>abc1234 on main</code>');
    expect((await get(loopback, '/ui/e/dev')).html).not.toContain('abc1234');
  });

  it('shows a dashboard by its key, and filters the list by a known status only', async () => {
    expect((await get(loopback, '/ui/e/dev/dashboard?key=dev-1')).html).toContain('Dev board');
    const rows = async (query: string): Promise<number> => [...(await get(loopback, `/ui/e/dev${query}`)).html.matchAll(/<tr class="dashboard"/g)].length;
    expect(await rows('')).toBe(1);
    expect(await rows('?status=live')).toBe(1);
    expect(await rows('?status=synced')).toBe(0);
    expect(await rows('?status=bogus')).toBe(1);
    expect((await get(loopback, '/ui/e/dev?status=synced')).html).toContain('>all</a>');
    expect((await get(loopback, '/ui/e/dev?status=bogus')).html).not.toContain('>all</a>');
  });

  it('decodes path segments, and a malformed one is a 400', async () => {
    expect((await get(loopback, '/ui/%65/d%65v')).status).toBe(200);
    const malformed = await get(loopback, '/ui/e/%E0%A4%A');
    expect(malformed.status).toBe(400);
    expect(malformed.html).toContain('The request path has a malformed percent-encoding.');
    expect(malformed.html).toContain('<title>Bad Request · dashcd</title>');
    expect(malformed.headers.get('connection')).not.toBe('close');
  });

  it('reads events over the last 24 hours by default, 1 to 168 as asked, ending at the next whole hour', async () => {
    // A listener of its own, made in the test: the clock it was given is what this test is about.
    const base = await listen('127.0.0.1');
    const windowOf = async (query: string): Promise<number> => {
      windows.length = 0;
      expect((await get(base, `/ui/e/dev/events${query}`)).status).toBe(200);
      const [window] = windows;
      expect(window?.to).toBe(Date.UTC(2026, 10, 28, 11));
      return ((window?.to ?? 0) - (window?.from ?? 0)) / HOUR;
    };
    expect(await windowOf('')).toBe(24);
    expect(await windowOf('?hours=6')).toBe(6);
    expect(await windowOf('?hours=0')).toBe(24);
    expect(await windowOf('?hours=-3')).toBe(1);
    expect(await windowOf('?hours=1000')).toBe(168);
    expect(await windowOf('?hours=x')).toBe(24);
    expect((await get(loopback, '/ui/e/dev/events?q=dev-event')).html).toContain('dev-event');
  });

  it("passes the page's filter to the source, which applies it as it reads", async () => {
    windows.length = 0;
    expect((await get(loopback, '/ui/e/dev/events?type=ERROR_EVENT&status=OPEN&q=%20host%20')).status).toBe(200);
    expect(windows.map((w) => w.filter)).toEqual([{ type: 'ERROR_EVENT', status: 'OPEN', text: 'host' }]);
  });

  it('a source whose reads are all taken is a 503 with Retry-After, not a wait without end', async () => {
    const busy = await get(loopback, '/ui/e/dev/events?q=busy');
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('5');
    expect(busy.html).toContain('The events archive is being read for other views; try again in a few seconds.');
  });

  it('a source that fails is a 502 with its reason, escaped', async () => {
    const broken = await get(loopback, '/ui/e/broken');
    expect(broken.status).toBe(502);
    expect(broken.html).toContain('Could not read: store &lt;gone&gt;');
    expect(broken.html).toContain('<title>Not available · dashcd</title>');
  });

  it('is read-only: other methods 405 with Allow; HEAD answers the headers only; every answer has the strict headers', async () => {
    const posted = await get(loopback, '/ui/e/dev', { method: 'POST' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect(posted.html).toContain('The console is read-only.');
    expect(posted.html).toContain('<title>Method not allowed · dashcd</title>');
    const head = await get(loopback, '/ui/e/dev', { method: 'HEAD' });
    expect([head.status, head.html]).toEqual([200, '']);
    for (const answer of [posted, head, await get(remote, '/ui')]) {
      expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('a loopback listener reached under another name is 421, before anything else', async () => {
    // fetch cannot set Host: a plain request can, as a DNS-rebound page's browser would send it.
    const { port } = new URL(loopback);
    const rebound = await new Promise<{ status: number; html: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/ui/login', method: 'POST', headers: { host: `evil.example:${port}` } }, (res) => {
        let html = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (html += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, html }));
      });
      req.on('error', reject);
      req.setTimeout(5000, () => req.destroy(new Error('no answer')));
      req.end(`token=${devRead}`);
    });
    expect(rebound.status).toBe(421);
    expect(rebound.html).toContain('answers only under a loopback name');
    expect(rebound.html).toContain('<title>Misdirected request · dashcd</title>');
  });

  it('a listener without a token store off loopback answers 403 to every page', async () => {
    const bare = createConsoleHandler(source, { host: '0.0.0.0' });
    const server = createServer((req, res) => void bare(req, res));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await get(base, '/ui/e/dev', { token: devRead });
    expect(answer.status).toBe(403);
    expect(answer.html).toContain('no token store');
    expect(answer.html).toContain('<title>Loopback only · dashcd</title>');
  });
});

describe('console sign-in', () => {
  const signIn = (token: string, extra: RequestInit = {}): Promise<{ status: number; html: string; headers: Headers }> =>
    get(remote, '/ui/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString(), ...extra });

  it('a token with a console scope gets a session cookie and a redirect to /ui; the cookie then reads its pages', async () => {
    const answer = await signIn(` ${devRead}\n`);
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('/ui');
    expect(answer.html).toBe('');
    const cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^dashcd_console=/);
    expect((await get(remote, '/ui/e/dev', { headers: { cookie } })).status).toBe(200);
    expect((await get(remote, '/ui/e/dev/events', { headers: { cookie } })).status).toBe(403);
  });

  it('an unknown token, or a body without one, gets the sign-in form again with 401 and why', async () => {
    for (const answer of [await signIn('nope'), await get(remote, '/ui/login', { method: 'POST', body: 'x=1' })]) {
      expect(answer.status).toBe(401);
      expect(answer.headers.get('set-cookie')).toBeNull();
      expect(answer.html).toContain('That token is unknown, or lacks both the ReadConfig and DataExport scopes.');
    }
  });

  it('a GET of /ui/login is a page like any other, not a sign-in', async () => {
    expect((await get(remote, `/ui/login?token=${devRead}`)).status).toBe(404);
  });

  it(`refuses a body past ${LOGIN_BODY_LIMIT} bytes with 413 and closes the connection; one at the limit is read`, async () => {
    const atLimit = `token=${devRead}&pad=`;
    const ok = await signIn('', { body: atLimit.padEnd(LOGIN_BODY_LIMIT, 'x') });
    expect(ok.status).toBe(303);
    const big = await signIn('', { body: atLimit.padEnd(LOGIN_BODY_LIMIT + 1, 'x') });
    expect(big.status).toBe(413);
    expect(big.headers.get('connection')).toBe('close');
    expect(big.html).toContain(`A sign-in body is at most ${LOGIN_BODY_LIMIT} bytes.`);
    expect(big.html).toContain('<title>Payload Too Large · dashcd</title>');
  });

  /** A sign-in written by hand: `length` announced (or chunked when absent), `body` sent, the request left open. */
  function rawSignIn(body: string, length?: number): Promise<{ status: number; connection: string | undefined }> {
    const { port } = new URL(remote);
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { 'content-type': 'application/x-www-form-urlencoded' };
      if (length !== undefined) headers['content-length'] = length;
      const req = request({ host: '127.0.0.1', port, path: '/ui/login', method: 'POST', headers }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        req.destroy();
      });
      req.on('error', () => undefined);
      req.setTimeout(5000, () => reject(new Error('no answer')));
      req.write(body);
    });
  }

  it('a sign-in whose client goes away midway leaves the listener answering', async () => {
    const { port } = new URL(remote);
    const gone = new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, path: '/ui/login', method: 'POST', headers: { 'content-length': 100 } });
      req.on('error', () => resolve());
      req.write('token=', () => setImmediate(() => req.destroy()));
      req.on('close', () => resolve());
    });
    await gone;
    expect((await get(remote, '/ui', { token: devRead })).status).toBe(200);
  });

  it('refuses a body announced past the limit before reading it, and a chunked one once it passes the limit', async () => {
    expect(await rawSignIn('token=x', LOGIN_BODY_LIMIT + 1)).toEqual({ status: 413, connection: 'close' });
    expect(await rawSignIn('x'.repeat(LOGIN_BODY_LIMIT + 1))).toEqual({ status: 413, connection: 'close' });
  });
});
