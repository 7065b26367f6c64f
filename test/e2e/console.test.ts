import { describe, expect, it } from 'vitest';
import { createDocumentsClient } from '../../src/client/documents-api.js';
import { createProject, runDashcd, startDashcdChild, unusedPort, type DashcdChild, type Project } from '../helpers/cli.js';
import { consoleScenario, EXPECTED_STATUS } from '../helpers/console-scenario.js';
import { createToken, TOKEN_LIKE, waitFor } from '../helpers/daemon.js';
import { daemonScopePerTest } from '../helpers/daemon-scope.js';
import { afterEach } from 'vitest';

const scope = daemonScopePerTest();

async function page(url: string, init: RequestInit = {}): Promise<{ status: number; html: string; headers: Headers }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/** name → data-status of every dashboard row. */
function statuses(html: string): Record<string, string> {
  const rows = [...html.matchAll(/<tr class="dashboard" data-status="(\w+)"[\s\S]*?<a href="[^"]*">([^<]*)<\/a>/g)];
  return Object.fromEntries(rows.map((m) => [m[2] ?? '', m[1] ?? '']));
}

/** name → [kind, status] of every row of a dashboards page, and each row's key. */
function rows(html: string): { name: string; kind: string; status: string; key: string }[] {
  return [...html.matchAll(/<tr class="dashboard" data-status="(\w+)" data-key="([^"]+)" data-kind="([^"]*)">[\s\S]*?<a href="[^"]*">([^<]*)<\/a>/g)].map((m) => ({ status: m[1] ?? '', key: m[2] ?? '', kind: m[3] ?? '', name: m[4] ?? '' }));
}

/** A platform dashboard's and a notebook's smallest content. */
const BOARD = { version: 1, variables: [], tiles: { '0': { type: 'markdown', content: '## Checkout' } }, layouts: { '0': { x: 0, y: 0, w: 24, h: 2 } } };
const NOTES = { version: '1', sections: [{ id: 'a', type: 'markdown', markdown: '# Runbook' }] };

describe('console on the daemon (/ui)', () => {
  it('lists the dashboards with their sync status; the drifted one shows its before/after and diff; problems at file:line:col; events as bars', async () => {
    const { d } = await consoleScenario(scope);
    const home = await page(`${d.url}/ui`);
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.html).toContain('data-env="local"');
    const list = await page(`${d.url}/ui/e/local`);
    expect(statuses(list.html)).toEqual(EXPECTED_STATUS);
    const key = (name: string): string => /data-key="([^"]+)"[\s\S]*?>([^<]*)<\/a>/g.exec(list.html.slice(list.html.indexOf(`>${name}</a>`) - 400))?.[1] ?? '';
    const drifted = await page(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent(key('DB v1'))}`);
    expect(drifted.html).toContain('class="picture drift"');
    expect(drifted.html).toMatch(/<span class="change">~ dashboardMetadata\.name: &quot;Edited by hand&quot; → &quot;DB v1&quot;<\/span>/);
    const invalid = await page(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent('dashboards/bad.yaml')}`);
    expect(invalid.html).toMatch(/<code>dashboards\/bad\.yaml:\d+:\d+<\/code> tiles:/);
    const synced = await page(`${d.url}/ui/e/local/dashboard?key=${encodeURIComponent(key('Web v1'))}`);
    expect(synced.html).toContain('class="picture layout"');
    const events = await page(`${d.url}/ui/e/local/events`);
    expect(events.html.match(/<rect class="bar"/g)?.length ?? 0).toBeGreaterThan(0);
    expect(events.html).toContain('data-group="status"');
    expect(events.html).toMatch(/<tr class="event" data-type="[^"]+" data-status="(OPEN|CLOSED)"/);
    const closed = await page(`${d.url}/ui/e/local/events?status=CLOSED`);
    expect(closed.html).not.toContain('data-status="OPEN"');
    expect((await page(`${d.url}/ui/e/nope`)).status).toBe(404);
    expect((await page(`${d.url}/ui`, { method: 'DELETE' })).status).toBe(405);
    const opened = await page(`${d.url}/`, { headers: { accept: 'text/html' } });
    expect([opened.status, opened.headers.get('location')]).toEqual([302, '/ui']);
  });
});

describe('console events on a busy daemon archive', () => {
  it('reads the newest 3,000 events of the window passing the filter, says the window holds more, for views at once too', async () => {
    // Every view read its whole window into memory: sixteen views of a week of 775,000 events ran the daemon out of memory.
    const now = Date.now();
    const byDay = new Map<string, string[]>();
    const line = (n: number, startTime: number, type: string): string => `{"eventId":${n},"startTime":${startTime},"endTime":${startTime + 1000},"eventType":"${type}","eventStatus":"CLOSED","entityId":"HOST-1","id":"${n}_${startTime}"}`;
    const add = (text: string, startTime: number): void => {
      const day = new Date(startTime).toISOString().slice(0, 10);
      byDay.set(day, [...(byDay.get(day) ?? []), text]);
    };
    for (let i = 0; i < 3_500; i++) add(line(1000 + i, now - 3_600_000 - i * 10_000, 'CUSTOM_INFO'), now - 3_600_000 - i * 10_000);
    // Two days old, past the newest 3,000: found by its type all the same.
    const rare = now - 2 * 86_400_000;
    add(line(99, rare, 'CUSTOM_DEPLOYMENT'), rare);
    const files = Object.fromEntries([...byDay].map(([day, lines]) => [`events-archive/local/date=${day}/events.jsonl`, `${lines.join('\n')}\n`]));
    const project = await scope.createProject({ ...files, 'dashboards/web.yaml': 'dashboardMetadata: { name: Web, owner: team@example.com }\ntiles: []\n' });
    const d = await scope.startDaemon(['--resync', '60s', '--poll', '60s'], { cwd: project.root });
    const views = await Promise.all(['', '?hours=48', '?hours=168', '?hours=168'].map((query) => page(`${d.url}/ui/e/local/events${query}`)));
    for (const view of views) {
      expect(view.status).toBe(200);
      expect(view.html).toContain('The newest 3,000 of more events that started from');
      expect(view.html).toContain(`: a page reads no more than 3,000, from ${new Date(now - 3_600_000 - 2_999 * 10_000).toISOString().replace('T', ' ').slice(0, 19)} on, and the timelines count only them;`);
      // The newest first.
      expect(/<tr class="event"[\s\S]*?data-label="Id"><code>([^<]*)<\/code>/.exec(view.html)?.[1]).toBe(`1000_${now - 3_600_000}`);
      expect(view.html).toContain('<option value="CUSTOM_INFO">CUSTOM_INFO</option>');
    }
    const found = await page(`${d.url}/ui/e/local/events?hours=168&type=CUSTOM_DEPLOYMENT`);
    expect(found.html).toContain('1 event that started from');
    expect(found.html).toContain(`<code>99_${rare}</code>`);
    // Inside a day: the rare event is outside it, and nothing is cut.
    expect((await page(`${d.url}/ui/e/local/events?type=CUSTOM_DEPLOYMENT`)).html).toContain('0 events that started from');
    expect((await page(`${d.url}/ui/e/local/events?hours=1`)).html).not.toContain('of more events');
  });
});

describe('console on a daemon with environments', () => {
  it('lists each environment of dashcd.yaml and its dashboards as that environment renders them, synced', async () => {
    const project = await scope.createProject({
      'dashcd.yaml': 'environments:\n  dev:\n    values: { tier: Dev }\n  prod:\n    values: { tier: Prod }\n',
      'dashboards/web.yaml': 'dashboardMetadata: { name: "Web ${{ values.tier }}", owner: team@example.com }\ntiles: []\n',
    });
    const d = await scope.startDaemon(['--resync', '60s', '--poll', '60s'], { cwd: project.root });
    const home = await page(`${d.url}/ui`);
    expect([...home.html.matchAll(/data-env="([^"]+)"/g)].map((m) => m[1])).toEqual(['dev', 'prod']);
    expect(statuses((await page(`${d.url}/ui/e/dev`)).html)).toEqual({ 'Web Dev': 'synced' });
    expect(statuses((await page(`${d.url}/ui/e/prod`)).html)).toEqual({ 'Web Prod': 'synced' });
    // No `local` here: an API client asking for / still learns where the API is.
    expect((await page(`${d.url}/`)).html).toBe('{"error":{"code":404,"message":"No resource at /: the dashboards API is at /e/{environment}/api/config/v1/dashboards"}}');
  });
});

describe('console on serve: live dashboards, and a token on a non-loopback address', () => {
  let project: Project | undefined;
  let child: DashcdChild | undefined;
  afterEach(async () => {
    await child?.stop();
    await project?.cleanup();
    child = project = undefined;
  });

  it('bound to 0.0.0.0: sign-in page without a token, the page with a ReadConfig token or its session cookie; the token never appears', async () => {
    project = await createProject({});
    const token = await createToken(project.root, '.dashcd', 'ReadConfig');
    const writeOnly = await createToken(project.root, '.dashcd', 'WriteConfig');
    const port = await unusedPort();
    child = await startDashcdChild(['serve', '--host', '0.0.0.0', '--port', String(port)], { cwd: project.root, ready: /dashcd serving/ });
    const base = `http://127.0.0.1:${port}`;
    const anonymous = await page(`${base}/ui/e/local`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.html).toContain('action="/ui/login"');
    expect((await page(`${base}/ui/e/local`, { headers: { authorization: `Api-Token ${writeOnly}` } })).status).toBe(403);
    const withHeader = await page(`${base}/ui/e/local`, { headers: { authorization: `Api-Token ${token}` } });
    expect(withHeader.status).toBe(200);
    const login = await page(`${base}/ui/login`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token }).toString() });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^dashcd_console=[\w-]+; HttpOnly; SameSite=Strict; Path=\/ui/);
    expect(cookie).not.toContain(token);
    const withCookie = await page(`${base}/ui`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    expect(withCookie.status).toBe(200);
    for (const html of [anonymous.html, withHeader.html, withCookie.html]) expect(html).not.toMatch(TOKEN_LIKE);
    const bad = await page(`${base}/ui/login`, { method: 'POST', body: 'token=nope', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(bad.status).toBe(401);
  });

  it('on loopback: no token needed; the live dashboards without sync status, and the events feed as bars', async () => {
    project = await createProject({ 'dashboards/web.yaml': 'dashboardMetadata: { name: Web, owner: me }\ntiles: []\n' });
    const port = await unusedPort();
    child = await startDashcdChild(['serve', '--port', String(port), '--simulate-events'], { cwd: project.root, ready: /dashcd serving/ });
    const base = `http://127.0.0.1:${port}`;
    const token = await createToken(project.root, '.dashcd', 'ReadConfig,WriteConfig');
    const created = await fetch(`${base}/e/local/api/config/v1/dashboards`, { method: 'POST', headers: { authorization: `Api-Token ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ dashboardMetadata: { name: 'Live one', owner: 'me' }, tiles: [] }) });
    expect(created.status).toBe(201);
    const list = await page(`${base}/ui/e/local`);
    expect(list.status).toBe(200);
    expect(statuses(list.html)).toEqual({ 'Live one': 'live' });
    // Someone who opens the address `serve` printed lands on the console; an API client asking for / learns where the API is.
    const opened = await page(`${base}/`, { headers: { accept: 'text/html' } });
    expect([opened.status, opened.headers.get('location')]).toEqual([302, '/ui']);
    expect((await page(`${base}/`)).html).toContain('the dashboards API is at /e/{environment}/api/config/v1/dashboards');
    const events = await waitFor(async () => {
      const html = (await page(`${base}/ui/e/local/events`)).html;
      return html.includes('<rect class="bar"') && html.includes('<tr class="event"') ? html : undefined;
    }, { what: 'simulated events on the console' });
    expect(events).toContain('data-group="status"');
  });

  it('lists public platform dashboards and notebooks with their kind and picture, under the dashboards rules; never another owner\'s private one', async () => {
    project = await createProject({});
    const port = await unusedPort();
    child = await startDashcdChild(['serve', '--host', '0.0.0.0', '--port', String(port)], { cwd: project.root, ready: /dashcd serving/ });
    const base = `http://127.0.0.1:${port}`;
    const readConfig = await createToken(project.root, '.dashcd', 'ReadConfig');
    const writeOnly = await createToken(project.root, '.dashcd', 'WriteConfig');
    const classic = await fetch(`${base}/e/local/api/config/v1/dashboards`, { method: 'POST', headers: { authorization: `Api-Token ${await createToken(project.root, '.dashcd', 'WriteConfig')}`, 'content-type': 'application/json' }, body: JSON.stringify({ dashboardMetadata: { name: 'Live one', owner: 'me' }, tiles: [] }) });
    expect(classic.status).toBe(201);

    // Alice makes two public documents and a private one in the apps.
    const made = await runDashcd(['token', 'create', '--data', '.dashcd', '--scopes', 'document:documents:read,document:documents:write', '--subject', 'alice'], { cwd: project.root });
    expect(made.code, made.stderr).toBe(0);
    const alice = createDocumentsClient({ platformUrl: `${base}/e/local`, credential: { kind: 'platform-token', token: made.stdout.trim().split('\n').pop() ?? '' }, retry: { maxAttempts: 1 } });
    try {
      const json = (value: unknown) => ({ bytes: JSON.stringify(value), contentType: 'application/json' });
      await alice.create({ id: 'checkout-board', name: 'Checkout board', type: 'dashboard', isPrivate: false, content: json(BOARD) });
      await alice.create({ id: 'runbook', name: 'Runbook', type: 'notebook', isPrivate: false, content: json(NOTES) });
      await alice.create({ id: 'alice-diary', name: 'Alice diary', type: 'notebook', isPrivate: true, content: json(NOTES) });
      await alice.create({ id: 'home', name: 'Home', type: 'launchpad', isPrivate: false, content: json({}) });
    } finally {
      await alice.close();
    }

    // The same rules as for dashboards: no token 401, a token without ReadConfig 403, and neither names a document.
    const anonymous = await page(`${base}/ui/e/local`);
    expect(anonymous.status).toBe(401);
    const forbidden = await page(`${base}/ui/e/local`, { headers: { authorization: `Api-Token ${writeOnly}` } });
    expect(forbidden.status).toBe(403);
    const denied = await page(`${base}/ui/e/local/dashboard?key=runbook`, { headers: { authorization: `Api-Token ${writeOnly}` } });
    expect(denied.status).toBe(403);
    for (const html of [anonymous.html, forbidden.html, denied.html]) expect(html).not.toMatch(/Checkout board|Runbook|Alice diary/);

    const list = await page(`${base}/ui/e/local`, { headers: { authorization: `Api-Token ${readConfig}` } });
    expect(list.status).toBe(200);
    expect(rows(list.html).map(({ name, kind, status }) => [name, kind, status]).sort()).toEqual([
      ['Checkout board', 'platform dashboard', 'live'],
      ['Live one', 'dashboard', 'live'],
      ['Runbook', 'notebook', 'live'],
    ]);
    expect(list.html).not.toContain('Alice diary');
    expect((await page(`${base}/ui/e/local/dashboard?key=alice-diary`, { headers: { authorization: `Api-Token ${readConfig}` } })).status).toBe(404);
    const notebook = await page(`${base}/ui/e/local/dashboard?key=runbook`, { headers: { authorization: `Api-Token ${readConfig}` } });
    expect(notebook.html).toMatch(/class="picture layout"><svg[\s\S]*notebook · 1 section/);
    const board = await page(`${base}/ui/e/local/dashboard?key=checkout-board`, { headers: { authorization: `Api-Token ${readConfig}` } });
    expect(board.html).toMatch(/class="picture layout"><svg[\s\S]*platform dashboard · 1 tile/);
    const home = await page(`${base}/ui`, { headers: { authorization: `Api-Token ${readConfig}` } });
    expect(home.html).toMatch(/data-status="live" data-count="3"/);
    for (const html of [list.html, notebook.html, board.html, home.html]) expect(html).not.toMatch(TOKEN_LIKE);
  });
});
