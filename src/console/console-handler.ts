import { collectBody } from '../lib/collect-body.js';
import { errorMessage } from '../lib/error-message.js';
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { ConsoleBusyError, type ConsoleSource } from './console-data.js';
import { createAccess, verdict, type AccessOptions, type Caller, type ConsoleScope, type Verdict } from './console-access.js';
import { dashboardPage, dashboardsPage, environmentsPage } from './dashboard-pages.js';
import { eventFilterOf } from './event-filter.js';
import { eventsPage } from './events-page.js';
import { h, page } from './page-shell.js';
import { isBrowserAtRoot, isConsoleRequest } from './console-path.js';
import { dashboardRows, ROW_STATUSES } from './sync-rows.js';

const HOUR = 3_600_000;
/** The longest window an events page shows (`?hours=`): a week. */
export const MAX_EVENT_HOURS = 168;
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // The pages carry no script and load nothing: anything injected could not run or call out.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

type Answer = { status: number; html: string; headers?: Record<string, string> };

/** A sign-in form is a few hundred bytes: a longer body is refused unread (413) and its connection closed. */
export const LOGIN_BODY_LIMIT = 8192;

/** A request the console refuses before routing (a bad URL, a body too large): its status and why. */
class Refusal extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/**
 * The read-only console under `/ui`, for `serve` and the daemon (a browser opening `/` is sent there): answers false
 * for any other request so the caller routes it on. Any request line gets an answer (a URL that does not parse is a 400); a source that cannot be read
 * answers 502 with the reason, never a crash. Each page is authorised as the API authorises its data: per
 * environment, dashboards with ReadConfig and events with DataExport (console-access.ts).
 */
export function createConsoleHandler(source: ConsoleSource, access: AccessOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const gate = createAccess(access);
  const now = access.now ?? Date.now;
  return (req, res) => {
    if (!isConsoleRequest(req)) return false;
    void answer(req, req.url ?? '/').then(
      (a) => send(res, req, a),
      (error: unknown) => {
        if (error instanceof ConsoleBusyError) return send(res, req, { status: 503, html: page('Busy', undefined, `<p>${h(error.message)}</p>`), headers: { 'retry-after': '5' } });
        if (error instanceof Refusal) return send(res, req, { status: error.status, html: page(STATUS_CODES[error.status] ?? 'Refused', undefined, `<p>${h(error.message)}</p>`), headers: error.status === 413 ? { connection: 'close' } : {} });
        send(res, req, { status: 502, html: page('Not available', undefined, `<p>Could not read: ${h(errorMessage(error))}</p>`) });
      },
    );
    return true;
  };

  async function answer(req: IncomingMessage, raw: string): Promise<Answer> {
    const url = parseUrl(raw);
    const caller = gate.caller(req);
    if (caller.kind === 'wrong-host') return { status: 421, html: page('Misdirected request', undefined, '<p>This console answers only under a loopback name (localhost, 127.0.0.1, [::1]) and its own port.</p>') };
    if (isBrowserAtRoot(req)) return { status: 302, html: '', headers: { location: '/ui' } };
    if (url.pathname === '/ui/login' && req.method === 'POST') return login(req);
    if (req.method !== 'GET' && req.method !== 'HEAD') return { status: 405, html: page('Method not allowed', undefined, '<p>The console is read-only.</p>'), headers: { allow: 'GET, HEAD' } };
    if (caller.kind === 'loopback-only') return { status: 403, html: page('Loopback only', undefined, '<p>This console has no token store to check a token against; listen on a loopback address to use it.</p>') };
    return route(url, caller);
  }

  async function route(url: URL, caller: Caller): Promise<Answer> {
    const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeSegment);
    if (parts.length === 1) {
      if (caller.kind === 'anonymous') return signInPage(401, '');
      const readable = (await source.environments()).filter((e) => verdict(caller, e.name, 'ReadConfig') === 'allowed');
      // The cards' counts come from the same state as each dashboards page: the source's own, never the target's.
      const rows = await Promise.all(readable.map(async (e) => {
        const state = await source.dashboards(e.name);
        return state === undefined ? undefined : dashboardRows(state);
      }));
      return { status: 200, html: environmentsPage(readable, rows) };
    }
    const [, e, env, view] = parts;
    if (e !== 'e' || env === undefined || parts.length > 4) return notFound();
    const refused = refusal(verdict(caller, env, view === 'events' ? 'DataExport' : 'ReadConfig'), env, view === 'events' ? 'DataExport' : 'ReadConfig');
    if (refused) return refused;
    if (view === 'events') {
      // As the dashboards page: an environment this console does not serve is a 404, not an empty timeline.
      if (!(await source.environments()).some((known) => known.name === env)) return notFound(`No environment ${env}.`);
      const hours = Math.min(MAX_EVENT_HOURS, Math.max(1, Number(url.searchParams.get('hours')) || 24));
      const to = Math.ceil(now() / HOUR) * HOUR;
      const window = { from: to - hours * HOUR, to };
      const filter = eventFilterOf(url.searchParams);
      return { status: 200, html: eventsPage(env, await source.events(env, window, filter), window, filter) };
    }
    const state = await source.dashboards(env);
    if (state === undefined) return notFound(`No environment ${env}.`);
    const rows = dashboardRows(state);
    const revision = state.kind === 'desired' ? state.revision : undefined;
    if (view === undefined) {
      const status = url.searchParams.get('status') ?? undefined;
      return { status: 200, html: dashboardsPage(env, rows, (ROW_STATUSES as readonly string[]).includes(status ?? '') ? status : undefined, revision) };
    }
    const row = view === 'dashboard' ? rows.find((r) => r.key === url.searchParams.get('key')) : undefined;
    if (!row) return notFound();
    // Read once (a spread would read the body too), and awaited: a live row's body is a promise.
    const { body, ...facts } = row;
    return { status: 200, html: dashboardPage(env, { ...facts, body: await body }, revision) };
  }

  async function login(req: IncomingMessage): Promise<Answer> {
    if (fromAnotherSite(req)) return { status: 403, html: page('Forbidden', undefined, '<p>Sign in from this console’s own page: a sign-in sent by another site’s page is refused.</p>') };
    const token = new URLSearchParams(await readSmallBody(req)).get('token') ?? '';
    const cookie = gate.signIn(token.trim());
    if (!cookie) return signInPage(401, 'That token is unknown, or lacks both the ReadConfig and DataExport scopes.');
    return { status: 303, html: '', headers: { location: '/ui', 'set-cookie': cookie } };
  }
}

/**
 * A sign-in another site's page sent (a form posted across sites): it would sign the browser in with a token of
 * that site's choosing, so the person at the console reads, and trusts, what that token sees. Told by the browser's
 * `Sec-Fetch-Site` alone when it sends one (behind a proxy that passes its upstream's address as `Host`, the console's
 * own page has an `Origin` of the proxy's name); else by an `Origin` that is not this console's host (`null`
 * included). A request carrying neither (curl, a script) is no browser's, and is taken.
 */
function fromAnotherSite(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined) return site !== 'same-origin' && site !== 'none';
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== req.headers.host?.toLowerCase();
  } catch {
    return true;
  }
}

/** 401: sign in with a token of `env` (a token of another environment is unknown there, as on the API); 403: a scope is missing. */
function refusal(decision: Verdict, env: string, scope: ConsoleScope): Answer | undefined {
  if (decision === 'unauthorized') return signInPage(401, `This page needs a token of environment ${env} with the ${scope} scope.`);
  if (decision === 'forbidden') return { status: 403, html: page('Forbidden', env, `<p>Your token lacks the ${h(scope)} scope in environment ${h(env)}.</p>`) };
  return undefined;
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw, 'http://console');
  } catch {
    throw new Refusal(400, 'The request URL does not parse.');
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new Refusal(400, 'The request path has a malformed percent-encoding.');
  }
}

function signInPage(status: number, message: string): Answer {
  const form = `<p>This console listens on a network address: sign in with an API token of the environment you want to read, with the ReadConfig scope for its dashboards and DataExport for its events (the token is not kept; the browser gets a session cookie that ends with the token).</p>
${message ? `<p class="status status-invalid">${h(message)}</p>` : ''}<form class="filter" method="post" action="/ui/login"><label>API token<input name="token" type="password" autocomplete="off" required></label><button type="submit">Sign in</button></form>`;
  return { status, html: page('Sign in', undefined, form) };
}

function notFound(message = 'No such page.'): Answer {
  return { status: 404, html: page('Not found', undefined, `<p>${h(message)} <a href="/ui">Environments</a></p>`) };
}

function send(res: ServerResponse, req: IncomingMessage, { status, html, headers }: Answer): void {
  res.writeHead(status, { ...HEADERS, ...headers });
  // Stryker disable next-line ConditionalExpression,StringLiteral: Node sends no body in answer to HEAD, whatever end() is given
  res.end(req.method === 'HEAD' ? undefined : html);
}

/**
 * The sign-in body, refused with 413 past LOGIN_BODY_LIMIT: reading stops there (the stream is paused, not
 * destroyed, so the 413 can still be written) and the answer's `connection: close` drops the rest unread.
 */
async function readSmallBody(req: IncomingMessage): Promise<string> {
  const body = await collectBody(req, { limit: LOGIN_BODY_LIMIT });
  if (body.ok) return body.bytes.toString('utf8');
  if (body.why === 'too-large') throw new Refusal(413, `A sign-in body is at most ${LOGIN_BODY_LIMIT} bytes.`);
  throw new Refusal(400, 'The sign-in body ended before it was complete.');
}
