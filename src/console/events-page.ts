import { MAX_CONSOLE_EVENTS, type ConsoleEvent, type ConsoleEvents, type EventFilter } from './console-data.js';
import { envPath, h, page } from './page-shell.js';
import { eventMatches } from './event-filter.js';
import { timelineSvg } from './timeline.js';

/** At most this many rows in the table (the timelines count every event of the window). */
const TABLE_ROWS = 500;

/** The events archive of one environment: per-hour timelines (by type, open vs closed), then a filterable table. */
export function eventsPage(env: string, read: ConsoleEvents, window: { from: number; to: number }, filter: EventFilter): string {
  const shown = read.events.filter((e) => eventMatches(e, filter));
  const charts = [timelineSvg(shown, window, 'type', 'Events per hour by type'), timelineSvg(shown, window, 'status', 'Open vs closed per hour')];
  const rows = [...shown].sort((a, b) => b.start - a.start).slice(0, TABLE_ROWS);
  const body = rows.map((e) => `<tr class="event" data-type="${h(e.type)}" data-status="${e.status}">
<td data-label="Start">${h(iso(e.start))}</td><td data-label="Type">${h(e.type)}</td><td data-label="Status">${e.status.toLowerCase()}</td>
<td data-label="End">${e.end === undefined ? '<span class="muted">—</span>' : h(iso(e.end))}</td><td data-label="Entity"><code>${h(e.entity ?? '')}</code></td><td data-label="Id"><code>${h(e.id)}</code></td></tr>`);
  const table = `<table class="stack events"><thead><tr><th>Start (UTC)</th><th>Type</th><th>Status</th><th>End</th><th>Entity</th><th>Id</th></tr></thead><tbody>${body.join('\n')}</tbody></table>`;
  const types = [...new Set([...read.types, ...(filter.type === undefined ? [] : [filter.type])])].sort();
  return page(`Events in ${env}`, env, `${charts.join('\n')}${filterForm(env, types, filter)}${countNote(shown, read.cut, window, filter)}${shown.length > rows.length ? `<p class="muted">The newest ${rows.length} listed.</p>` : ''}${table}`);
}

/** How many events the page shows, of what; when the window held more than a page reads, from when and where the rest is. */
function countNote(shown: readonly ConsoleEvent[], cut: boolean, window: { from: number; to: number }, filter: EventFilter): string {
  const what = (one: boolean): string => `${one ? 'event that' : 'events that'} started from ${h(iso(window.from))} to ${h(iso(window.to))}${isFiltered(filter) ? (one ? ' and matches the filter' : ' and match the filter') : ''}`;
  if (!cut) return `<p class="muted">${shown.length} ${what(shown.length === 1)}.</p>`;
  const oldest = shown.reduce((min, e) => Math.min(min, e.start), Number.POSITIVE_INFINITY);
  const since = Number.isFinite(oldest) ? `, from ${h(iso(oldest))} on` : '';
  const shorter = window.to - window.from > HOUR ? 'a shorter window (<code>?hours=</code>) or ' : '';
  return `<p class="muted">The newest ${shown.length.toLocaleString('en-US')} of more ${what(false)}: a page reads no more than ${MAX_CONSOLE_EVENTS.toLocaleString('en-US')}${since}, and the timelines count only them; ${shorter}<code>dashcd events query</code> reads the rest.</p>`;
}

const HOUR = 3_600_000;

function isFiltered(filter: EventFilter): boolean {
  return filter.type !== undefined || filter.status !== undefined || filter.text !== undefined;
}

function filterForm(env: string, types: readonly string[], filter: EventFilter): string {
  const option = (value: string, label: string, selected: string | undefined): string => `<option value="${h(value)}"${selected === value ? ' selected' : ''}>${h(label)}</option>`;
  return `<form class="filter" method="get" action="${envPath(env, '/events')}">
<label>Type<select name="type">${option('', 'any', filter.type ?? '')}${types.map((t) => option(t, t, filter.type)).join('')}</select></label>
<label>Status<select name="status">${option('', 'any', filter.status ?? '')}${option('OPEN', 'open', filter.status)}${option('CLOSED', 'closed', filter.status)}</select></label>
<label>Entity or id<input name="q" value="${h(filter.text ?? '')}"></label><button type="submit">Filter</button></form>`;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
