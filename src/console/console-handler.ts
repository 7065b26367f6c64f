import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConsoleSource } from './console-data.js';
import { createAccess, type AccessOptions } from './console-access.js';
import { dashboardPage, dashboardsPage, environmentsPage } from './dashboard-pages.js';
import { eventFilterOf, eventsPage } from './events-page.js';
import { h, page } from './page-shell.js';
import { dashboardRows, SYNC_STATUSES } from './sync-rows.js';

const HOUR = 3_600_000;
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The pages carry no script and load nothing: anything injected could not run or call out.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

type Answer = { status: number; html: string; headers?: Record<string, string> };

/**
 * The read-only console under `/ui`, for `serve` and the daemon: answers false for any other path so the caller
 * routes it on. A source that cannot be read answers 502 with the reason, never a crash.
 */
export function createConsoleHandler(source: ConsoleSource, access: AccessOptions & { now?: () => number }): (req: IncomingMessage, res: ServerResponse) => boolean {
  const gate = createAccess(access);
  const now = access.now ?? Date.now;
  return (req, res) => {
    const url = new URL(req.url ?? '/', 'http://console');
    if (url.pathname !== '/ui' && !url.pathname.startsWith('/ui/')) return false;
    void answer(req, url).then(
      (a) => send(res, req, a),
      (error: unknown) => send(res, req, { status: 502, html: page('Not available', undefined, `<p>Could not read: ${h(error instanceof Error ? error.message : String(error))}</p>`) }),
    );
    return true;
  };

  async function answer(req: IncomingMessage, url: URL): Promise<Answer> {
    if (url.pathname === '/ui/login' && req.method === 'POST') return login(req);
    if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, html: page('Method not allowed', undefined, '<p>The console is read-only.</p>'), headers: { allow: 'GET, HEAD' } };
    const decision = gate.decide(req);
    if (decision.kind === 'loopback-only') return { status: 403, html: page('Loopback only', undefined, '<p>This console has no token store to check a token against; listen on a loopback address to use it.</p>') };
    if (decision.kind === 'sign-in') return signInPage(401, '');
    return route(url);
  }

  async function route(url: URL): Promise<Answer> {
    const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
    if (parts.length === 1) return { status: 200, html: environmentsPage(await source.environments()) };
    const [, e, env, view] = parts;
    if (e !== 'e' || env === undefined || parts.length > 4) return notFound();
    if (view === 'events') {
      const hours = Math.min(168, Math.max(1, Number(url.searchParams.get('hours')) || 24));
      const to = Math.ceil(now() / HOUR) * HOUR;
      const window = { from: to - hours * HOUR, to };
      return { status: 200, html: eventsPage(env, await source.events(env, window), window, eventFilterOf(url.searchParams)) };
    }
    const state = await source.dashboards(env);
    if (state === undefined) return notFound(`No environment ${env}.`);
    const rows = dashboardRows(state);
    const revision = state.kind === 'desired' ? state.revision : undefined;
    if (view === undefined) {
      const status = url.searchParams.get('status') ?? undefined;
      return { status: 200, html: dashboardsPage(env, rows, (SYNC_STATUSES as readonly string[]).includes(status ?? '') ? status : undefined, revision) };
    }
    const row = view === 'dashboard' ? rows.find((r) => r.key === url.searchParams.get('key')) : undefined;
    return row ? { status: 200, html: dashboardPage(env, row, revision) } : notFound();
  }

  async function login(req: IncomingMessage): Promise<Answer> {
    const token = new URLSearchParams(await readSmallBody(req)).get('token') ?? '';
    const cookie = gate.signIn(token.trim());
    if (!cookie) return signInPage(401, 'That token is unknown or lacks the ReadConfig scope.');
    return { status: 303, html: '', headers: { location: '/ui', 'set-cookie': cookie } };
  }
}

function signInPage(status: number, message: string): Answer {
  const form = `<p>This console listens on a network address: sign in with an API token that has the ReadConfig scope (the token is not kept; the browser gets a session cookie).</p>
${message ? `<p class="status status-invalid">${h(message)}</p>` : ''}<form class="filter" method="post" action="/ui/login"><label>API token<input name="token" type="password" autocomplete="off" required></label><button type="submit">Sign in</button></form>`;
  return { status, html: page('Sign in', undefined, form) };
}

function notFound(message = 'No such page.'): Answer {
  return { status: 404, html: page('Not found', undefined, `<p>${h(message)} <a href="/ui">Environments</a></p>`) };
}

function send(res: ServerResponse, req: IncomingMessage, { status, html, headers }: Answer): void {
  res.writeHead(status, { ...HEADERS, ...headers });
  res.end(req.method === 'HEAD' ? undefined : html);
}

/** A sign-in form is a few hundred bytes; anything past 8 KiB is cut (the token is then simply wrong). */
async function readSmallBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) {
    if (text.length < 8192) text += String(chunk);
  }
  return text.slice(0, 8192);
}
