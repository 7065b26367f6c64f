import { describe, expect, it } from 'vitest';
import type { PlanChange } from '../../../src/plan/build-plan.js';
import { MAX_CONSOLE_EVENTS, type ConsoleEvent, type ConsoleEvents } from '../../../src/console/console-data.js';
import { dashboardPage, dashboardsPage, environmentsPage, MAX_DRAWN_PARTS } from '../../../src/console/dashboard-pages.js';
import { eventFilterOf } from '../../../src/console/event-filter.js';
import { eventsPage } from '../../../src/console/events-page.js';
import { envPath, page } from '../../../src/console/page-shell.js';
import type { DashboardRow } from '../../../src/console/sync-rows.js';

const HOUR = 3_600_000;
const FROM = Date.UTC(2026, 10, 28, 0);
const WINDOW = { from: FROM, to: FROM + 24 * HOUR };
const event = (id: string, type: string, start: number, extra: Partial<ConsoleEvent> = {}): ConsoleEvent => ({ id, type, start, end: undefined, status: 'OPEN', entity: undefined, ...extra });
const EVENTS = [
  event('e-1', 'ERROR_EVENT', FROM + HOUR, { entity: 'HOST-ABC' }),
  event('e-2', 'CUSTOM_INFO', FROM + 2 * HOUR, { status: 'CLOSED', end: FROM + 3 * HOUR, entity: 'SERVICE-1' }),
  event('E-3', 'ERROR_EVENT', FROM + 3 * HOUR, { status: 'CLOSED', end: FROM + 4 * HOUR }),
];
/** Every event of the window, as a source reads them when the window holds no more than a page reads. */
const whole = (events: readonly ConsoleEvent[]): ConsoleEvents => ({ events, cut: false, types: events.map((e) => e.type) });
const rowsOf = (html: string): string[] => [...html.matchAll(/<tr class="event" data-type="([^"]*)" data-status="([^"]*)">[\s\S]*?data-label="Id"><code>([^<]*)<\/code>/g)].map((m) => `${m[3]} ${m[1]} ${m[2]}`);

describe('console events page', () => {
  it('reads the filter from the query: blanks and empty values are no filter', () => {
    expect(eventFilterOf(new URLSearchParams('type=ERROR_EVENT&status=OPEN&q=%20host%20'))).toEqual({ type: 'ERROR_EVENT', status: 'OPEN', text: 'host' });
    expect(eventFilterOf(new URLSearchParams('type=&status=%20&q='))).toEqual({ type: undefined, status: undefined, text: undefined });
  });

  it('lists the events newest first, each with its start, type, status, end, entity and id', () => {
    const html = eventsPage('dev', whole(EVENTS), WINDOW, {});
    expect(rowsOf(html)).toEqual(['E-3 ERROR_EVENT CLOSED', 'e-2 CUSTOM_INFO CLOSED', 'e-1 ERROR_EVENT OPEN']);
    expect(html).toContain('<td data-label="Start">2026-11-28 02:00:00</td><td data-label="Type">CUSTOM_INFO</td><td data-label="Status">closed</td>');
    expect(html).toContain('<td data-label="End">2026-11-28 03:00:00</td><td data-label="Entity"><code>SERVICE-1</code></td><td data-label="Id"><code>e-2</code></td></tr>');
    expect(html).toContain('<td data-label="End"><span class="muted">—</span></td><td data-label="Entity"><code>HOST-ABC</code></td>');
    expect(html).toContain('<td data-label="Entity"><code></code></td><td data-label="Id"><code>E-3</code></td>');
    expect(html).toContain('<p class="muted">3 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00.</p>');
    expect(html).toContain('<title>Events in dev · dashcd</title>');
    expect(html).toContain('</select></label>\n<label>Status<select name="status">');
    expect(html).toContain('</form><p class="muted">3 events');
    expect(html).toContain('.</p><table class="stack events"><thead><tr><th>Start (UTC)</th><th>Type</th><th>Status</th><th>End</th><th>Entity</th><th>Id</th></tr></thead><tbody><tr class="event"');
    expect(html).toContain('</figure>\n<figure class="timeline" data-group="status">');
  });

  it('filters by type, status and part of the entity or id, ignoring case', () => {
    const ids = (filter: Parameters<typeof eventsPage>[3]): string[] => rowsOf(eventsPage('dev', whole(EVENTS), WINDOW, filter)).map((r) => r.split(' ')[0] ?? '');
    expect(ids({ type: 'ERROR_EVENT' })).toEqual(['E-3', 'e-1']);
    expect(ids({ status: 'CLOSED' })).toEqual(['E-3', 'e-2']);
    expect(ids({ type: 'ERROR_EVENT', status: 'OPEN' })).toEqual(['e-1']);
    expect(ids({ text: 'host-abc' })).toEqual(['e-1']);
    expect(ids({ text: 'e-3' })).toEqual(['E-3']);
    expect(ids({ text: 'SERVICE' })).toEqual(['e-2']);
    expect(ids({ text: 'nothing' })).toEqual([]);
    expect(ids({ text: 'h' })).toEqual(['e-1']);
    expect(eventsPage('dev', whole(EVENTS), WINDOW, { status: 'CLOSED' })).toContain('<p class="muted">2 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00 and match the filter.</p>');
  });

  it('lists at most the newest 500 and says so', () => {
    const many = Array.from({ length: 501 }, (_, i) => event(`m-${i}`, 'T', FROM + i));
    const html = eventsPage('dev', whole(many), WINDOW, {});
    expect(rowsOf(html)).toHaveLength(500);
    expect(rowsOf(html)[0]).toBe('m-500 T OPEN');
    expect(html).toContain('501 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00.</p><p class="muted">The newest 500 listed.</p>');
    expect(eventsPage('dev', whole(many.slice(0, 500)), WINDOW, {})).toContain('500 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00.</p><table');
  });

  it('says when the window held more events than were read, from when the read ones start, and what reads the rest', () => {
    const newest = Array.from({ length: MAX_CONSOLE_EVENTS }, (_, i) => event(`n-${i}`, 'T', FROM + 5 * HOUR + i));
    const html = eventsPage('dev', { events: newest, cut: true, types: ['T'] }, WINDOW, {});
    expect(html).toContain('<p class="muted">The newest 3,000 of more events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00: a page reads no more than 3,000, from 2026-11-28 05:00:00 on, and the timelines count only them; a shorter window (<code>?hours=</code>) or <code>dashcd events query</code> reads the rest.</p><p class="muted">The newest 500 listed.</p><table');
    expect(eventsPage('dev', { events: newest, cut: false, types: ['T'] }, WINDOW, {})).not.toContain('of more events');
    // An hour is the shortest window: only the archive's own query is left to offer.
    const hour = { from: FROM, to: FROM + HOUR };
    expect(eventsPage('dev', { events: newest, cut: true, types: ['T'] }, hour, { type: 'T' })).toContain('to 2026-11-28 01:00:00 and match the filter: a page reads no more than 3,000, from 2026-11-28 05:00:00 on, and the timelines count only them; <code>dashcd events query</code> reads the rest.</p>');
    // A feed that named a next page but gave no events on the pages read: no start to name.
    expect(eventsPage('dev', { events: [], cut: true, types: [] }, WINDOW, {})).toContain('<p class="muted">The newest 0 of more events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00: a page reads no more than 3,000, and the timelines');
  });

  it('counts one event in the singular, and says when a filter chose them, whichever member it is', () => {
    expect(eventsPage('dev', whole([EVENTS[0] as ConsoleEvent]), WINDOW, { text: 'host' })).toContain('<p class="muted">1 event that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00 and matches the filter.</p>');
    expect(eventsPage('dev', whole([EVENTS[0] as ConsoleEvent]), WINDOW, {})).toContain('<p class="muted">1 event that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00.</p>');
    expect(eventsPage('dev', whole(EVENTS), WINDOW, { text: 'e-' })).toContain('3 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00 and match the filter.</p>');
    expect(eventsPage('dev', whole(EVENTS), WINDOW, { type: 'ERROR_EVENT' })).toContain('2 events that started from 2026-11-28 00:00:00 to 2026-11-29 00:00:00 and match the filter.</p>');
  });

  it('offers the types the read saw, whatever the filter, and the chosen one even when the read saw none of it', () => {
    const read = { events: [EVENTS[1] as ConsoleEvent], cut: false, types: ['ERROR_EVENT', 'CUSTOM_INFO'] };
    expect(eventsPage('dev', read, WINDOW, { type: 'CUSTOM_INFO' })).toContain('<option value="CUSTOM_INFO" selected>CUSTOM_INFO</option><option value="ERROR_EVENT">ERROR_EVENT</option></select>');
    expect(eventsPage('dev', { events: [], cut: false, types: [] }, WINDOW, { type: 'RARE' })).toContain('<option value="">any</option><option value="RARE" selected>RARE</option></select>');
  });

  it('offers each type once, sorted, and keeps the chosen filter selected', () => {
    const html = eventsPage('dev', whole(EVENTS), WINDOW, { type: 'CUSTOM_INFO', status: 'CLOSED', text: 'a"b' });
    expect(html).toContain('<form class="filter" method="get" action="/ui/e/dev/events">');
    expect(html).toContain('<select name="type"><option value="">any</option><option value="CUSTOM_INFO" selected>CUSTOM_INFO</option><option value="ERROR_EVENT">ERROR_EVENT</option></select>');
    expect(html).toContain('<select name="status"><option value="">any</option><option value="OPEN">open</option><option value="CLOSED" selected>closed</option></select>');
    expect(html).toContain('<input name="q" value="a&quot;b">');
    expect(eventsPage('dev', whole(EVENTS), WINDOW, {})).toContain('<select name="type"><option value="" selected>any</option><option value="CUSTOM_INFO">CUSTOM_INFO</option><option value="ERROR_EVENT">ERROR_EVENT</option></select>');
    expect(eventsPage('dev', whole(EVENTS), WINDOW, {})).toContain('<input name="q" value="">');
  });

  it('draws the two timelines over the events shown', () => {
    const html = eventsPage('dev', whole(EVENTS), WINDOW, { type: 'ERROR_EVENT' });
    expect([...html.matchAll(/<figure class="timeline" data-group="(\w+)"><figcaption>([^<]*)</g)].map((m) => `${m[1]} ${m[2]}`)).toEqual(['type Events per hour by type ', 'status Open vs closed per hour ']);
    expect([...html.matchAll(/data-count="(\d+)"><title>/g)].map((m) => m[1])).toEqual(['1', '1', '1', '1']);
  });
});

describe('console page shell', () => {
  it('links an environment by its escaped name', () => {
    expect(envPath('a b/c')).toBe('/ui/e/a%20b%2Fc');
    expect(envPath('dev', '/events')).toBe('/ui/e/dev/events');
  });

  it('names the page and its environment, escaped, with the environment links only on its pages', () => {
    const html = page('A <b>', 'd&v', '<p>body</p>');
    expect(html).toContain('<title>A &lt;b&gt; · dashcd</title>');
    expect(html).toContain('<header><strong>dashcd</strong> <span class="env">d&amp;v</span><nav><a href="/ui">Environments</a><a href="/ui/e/d%26v">Dashboards</a><a href="/ui/e/d%26v/events">Events</a></nav></header>');
    expect(html).toContain('<main><h1>A &lt;b&gt;</h1>\n<p>body</p>\n</main>');
    expect(page('Home', undefined, '')).toContain('<header><strong>dashcd</strong><nav><a href="/ui">Environments</a></nav></header>');
    expect(html.startsWith('<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">')).toBe(true);
  });
});

describe('console dashboard pages', () => {
  const row = (key: string, status: DashboardRow['status'], extra: Partial<DashboardRow> = {}): DashboardRow => ({
    key,
    name: `Board ${key}`,
    status,
    kind: 'dashboard',
    file: `dashboards/${key}.yaml`,
    detail: '',
    change: undefined,
    problems: [],
    body: undefined,
    ...extra,
  });
  const ROWS = [row('a', 'synced'), row('b', 'drifted', { detail: '2 differences from the file' }), row('c d', 'synced', { file: undefined })];

  it('lists the rows with file, revision and detail, and a chip per status linking to the filter', () => {
    const html = dashboardsPage('dev', ROWS, undefined, 'abc1234 on main');
    expect(html).toContain('<a href="/ui/e/dev?status=synced"><span class="status status-synced" data-status="synced" data-count="2">2 synced</span></a> <a href="/ui/e/dev?status=drifted"><span class="status status-drifted" data-status="drifted" data-count="1">1 drifted</span></a></div>');
    expect(html).toContain('<tr class="dashboard" data-status="drifted" data-key="b" data-kind="dashboard">\n<td data-label="Dashboard"><a href="/ui/e/dev/dashboard?key=b">Board b</a></td>\n<td data-label="Kind">dashboard</td>');
    expect(html).toContain('<td data-label="Status"><span class="status status-drifted">drifted</span></td>\n<td data-label="File"><code>dashboards/b.yaml</code></td>\n<td data-label="Revision"><code>abc1234 on main</code></td>\n<td data-label="Detail">2 differences from the file</td></tr>');
    expect(html).toContain('<a href="/ui/e/dev/dashboard?key=c%20d">Board c d</a>');
    expect(html).toContain('<td data-label="File"><span class="muted">—</span></td>');
    expect(html).not.toContain('No dashboards.');
    expect(html).toContain('<title>Dashboards in dev · dashcd</title>');
    expect(html).toContain('<div class="counts"><a href="/ui/e/dev?status=synced">');
    expect(html).toContain('<table class="stack dashboards"><thead><tr><th>Dashboard</th><th>Kind</th><th>Status</th><th>File</th><th>Revision</th><th>Detail</th></tr></thead><tbody><tr class="dashboard" data-status="synced" data-key="a" data-kind="dashboard">');
    expect(html).toContain('</td></tr>\n<tr class="dashboard" data-status="drifted" data-key="b" data-kind="dashboard">');
    expect(html).toContain('</tbody></table>\n</main>');
    expect(dashboardsPage('dev', ROWS, undefined, undefined)).toContain('<td data-label="Revision"><span class="muted">—</span></td>');
  });

  it('filtered: only that status, and a link back to all', () => {
    const html = dashboardsPage('dev', ROWS, 'drifted', undefined);
    expect([...html.matchAll(/data-key="([^"]+)"/g)].map((m) => m[1])).toEqual(['b']);
    expect(html).toContain('1 drifted</span></a> <a href="/ui/e/dev">all</a></div>');
    const none = dashboardsPage('dev', ROWS, 'failed', undefined);
    expect(none).toContain('</tbody></table><p class="muted">No dashboards.</p>');
  });

  it('shows a dashboard: status, kind, file, revision and detail; its problems at file:line:col; its layout', () => {
    const html = dashboardPage('dev', row('a', 'invalid', {
      kind: undefined,
      detail: 'tiles[0]: bad',
      problems: [{ file: 'dashboards/a.yaml', line: 3, col: 5, path: 'tiles[0]', message: 'bad <thing>' }],
      body: { dashboardMetadata: { name: 'A', owner: 'o' }, tiles: [] },
    }), 'abc1234');
    expect(html).toContain('<p class="facts"><span class="status status-invalid">invalid</span> · <code>dashboards/a.yaml</code> · revision <code>abc1234</code> · tiles[0]: bad</p>');
    expect(html).toContain('<h2>Validation problems</h2><ul class="problems"><li><code>dashboards/a.yaml:3:5</code> tiles[0]: bad &lt;thing&gt;</li></ul>\n<h2>Layout</h2>');
    expect(html).toContain('<title>Board a · dashcd</title>');
    expect(html).toContain('<h2>Layout</h2><div class="picture layout"><svg');
    const bare = dashboardPage('dev', row('x', 'live', { file: undefined }), undefined);
    expect(bare).toContain('<p class="facts"><span class="status status-live">live</span> · <span class="kind">dashboard</span></p>');
    expect(bare).not.toContain('Validation problems');
    expect(bare).not.toContain('<h2>Layout</h2>');
  });

  it(`draws at most ${MAX_DRAWN_PARTS} tiles or sections, and says so (21,000 tiles held serve 22 s per view)`, () => {
    const tiles = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { type: 'markdown', content: 'x' }]));
    const body = (n: number) => ({ document: { kind: 'dashboard', name: 'Huge' }, tiles: tiles(n), layouts: {} });
    const over = dashboardPage('dev', row('h', 'live', { body: body(MAX_DRAWN_PARTS + 1) }), undefined);
    expect(over).toContain(`<h2>Layout</h2><p class="muted">${MAX_DRAWN_PARTS + 1} tiles or sections: more than the console draws (${MAX_DRAWN_PARTS}); <code>dashcd preview</code> draws it.</p>`);
    expect(over).not.toContain('<svg');
    expect(dashboardPage('dev', row('h', 'live', { body: body(MAX_DRAWN_PARTS) }), undefined)).toContain('<div class="picture layout"><svg');
    const classic = { dashboardMetadata: { name: 'C', owner: 'o' }, tiles: Array.from({ length: MAX_DRAWN_PARTS + 1 }, () => ({ name: 't', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 38, height: 38 } })) };
    expect(dashboardPage('dev', row('c', 'live', { body: classic }), undefined)).not.toContain('<svg');
    const notebook = { document: { kind: 'notebook', name: 'N' }, sections: Array.from({ length: MAX_DRAWN_PARTS + 1 }, (_, i) => ({ id: String(i), type: 'markdown', markdown: 'x' })) };
    expect(dashboardPage('dev', row('n', 'live', { body: notebook }), undefined)).not.toContain('<svg');
    // A drift's picture draws the dashboard twice: within the bound as well; its diff is shown either way.
    const desired = body(MAX_DRAWN_PARTS + 1);
    const change = { action: 'update', kind: 'document', id: 'h', name: 'Huge', file: 'h.json', desired, patch: [{ op: 'replace' as const, path: '/document/name', value: 'Huge' }], before: ['Old'] } as unknown as PlanChange;
    const drifted = dashboardPage('dev', row('h', 'drifted', { change, body: desired }), undefined);
    expect(drifted).toContain(`<h2>Live drift: live (above) → file (below)</h2><p class="muted">${MAX_DRAWN_PARTS + 1} tiles or sections`);
    expect(drifted).not.toContain('<svg');
    expect(drifted).toMatch(/<pre class="diff">[\s\S]*Old[\s\S]*<\/pre>/);
  });

  it('shows the live drift of an update or adoption as a picture and a diff, instead of the layout', () => {
    const desired = { dashboardMetadata: { name: 'New', owner: 'o' }, tiles: [] };
    for (const action of ['update', 'adopt'] as const) {
      const change = { action, id: 'a', name: 'A', file: 'a.yaml', desired, patch: [{ op: 'replace' as const, path: '/dashboardMetadata/name', value: 'New' }], before: ['Old'] } as PlanChange;
      const html = dashboardPage('dev', row('a', 'drifted', { change, body: desired }), undefined);
      expect(html).toContain('<h2>Live drift: live (above) → file (below)</h2><div class="picture drift"><svg');
      expect(html).toMatch(/<pre class="diff">[^<]*<span[^>]*>[\s\S]*Old[\s\S]*<\/pre>/);
      expect(html).not.toContain('<h2>Layout</h2>');
    }
    const created = dashboardPage('dev', row('c', 'drifted', { change: { action: 'create', id: 'c', name: 'C', file: 'c.yaml', desired }, body: desired }), undefined);
    expect(created).toContain('<h2>Layout</h2>');
    expect(created).not.toContain('Live drift');
  });
});

describe('console environments page', () => {
  it('a card per environment: its link, target, counts, revision and notes', () => {
    const html = environmentsPage(
      [
        { name: 'dev', target: 'embedded /e/dev', revision: 'abc1234 on main', notes: ['stale: <fetch failed>', 'second'] },
        { name: 'prod', target: 'https://prod.example' },
        { name: 'new', target: 'embedded /e/new' },
      ],
      [[{ key: 'a', name: 'A', status: 'synced', file: 'a.yaml', detail: '', change: undefined, problems: [], body: undefined }], [], undefined],
    );
    expect(html).toContain('<title>Environments · dashcd</title>');
    expect(html).toContain('<div class="cards"><section class="card environment" data-env="dev"><h2><a href="/ui/e/dev">dev</a></h2>\n<p class="muted">embedded /e/dev</p><p class="counts"><a href="/ui/e/dev?status=synced"><span class="status status-synced" data-status="synced" data-count="1">1 synced</span></a></p><p>Revision <code>abc1234 on main</code></p><ul><li>stale: &lt;fetch failed&gt;</li><li>second</li></ul>\n<p><a href="/ui/e/dev">Dashboards</a> · <a href="/ui/e/dev/events">Events</a></p></section>\n<section');
    expect(html).toContain('<p class="muted">https://prod.example</p><p class="counts"><span class="muted">No dashboards.</span></p>\n<p><a href="/ui/e/prod">');
    expect(html).toContain('<p class="muted">embedded /e/new</p>\n<p><a href="/ui/e/new">Dashboards</a>');
    expect(html).toContain('</section></div>');
    expect(environmentsPage([{ name: 'x', target: 't' }])).toContain('<p class="muted">t</p>\n<p>');
  });
});

