import { MAX_CONSOLE_EVENTS, type ConsoleEvent, type ConsoleEvents } from './console-data.js';
import { envPath, h, page } from './page-shell.js';
import { timelineSvg } from './timeline.js';

export interface EventFilter {
  type?: string | undefined;
  status?: string | undefined;
  /** Part of the entity or event id. */
  text?: string | undefined;
}

/** At most this many rows in the table (the timelines count every event of the window). */
const TABLE_ROWS = 500;

export function eventFilterOf(query: URLSearchParams): EventFilter {
  const value = (name: string): string | undefined => {
    const v = query.get(name)?.trim();
    return v ? v : undefined;
  };
  return { type: value('type'), status: value('status'), text: value('q') };
}

/** The events archive of one environment: per-hour timelines (by type, open vs closed), then a filterable table. */
export function eventsPage(env: string, read: ConsoleEvents, window: { from: number; to: number }, filter: EventFilter): string {
  const { events } = read;
  const shown = events.filter((e) => matches(e, filter));
  const charts = [timelineSvg(shown, window, 'type', 'Events per hour by type'), timelineSvg(shown, window, 'status', 'Open vs closed per hour')];
  const rows = [...shown].sort((a, b) => b.start - a.start).slice(0, TABLE_ROWS);
  const body = rows.map((e) => `<tr class="event" data-type="${h(e.type)}" data-status="${e.status}">
<td data-label="Start">${h(iso(e.start))}</td><td data-label="Type">${h(e.type)}</td><td data-label="Status">${e.status.toLowerCase()}</td>
<td data-label="End">${e.end === undefined ? '<span class="muted">—</span>' : h(iso(e.end))}</td><td data-label="Entity"><code>${h(e.entity ?? '')}</code></td><td data-label="Id"><code>${h(e.id)}</code></td></tr>`);
  const table = `<table class="stack events"><thead><tr><th>Start (UTC)</th><th>Type</th><th>Status</th><th>End</th><th>Entity</th><th>Id</th></tr></thead><tbody>${body.join('\n')}</tbody></table>`;
  const note = `<p class="muted">${shown.length} of ${events.length} events that started from ${h(iso(window.from))} to ${h(iso(window.to))}${shown.length > rows.length ? `; the newest ${rows.length} listed` : ''}.</p>`;
  return page(`Events in ${env}`, env, `${charts.join('\n')}${filterForm(env, events, filter)}${note}${read.cut ? cutNote(events) : ''}${table}`);
}

/** Says the window held more than was read, and where else the rest can be read. */
function cutNote(events: readonly ConsoleEvent[]): string {
  const oldest = events.reduce((min, e) => Math.min(min, e.start), Number.POSITIVE_INFINITY);
  const since = Number.isFinite(oldest) ? `, from ${h(iso(oldest))} on,` : '';
  return `<p class="muted">The window holds more events than a page reads: these are its newest ${MAX_CONSOLE_EVENTS.toLocaleString('en-US')}${since} and the timelines count only them. A shorter window (<code>?hours=</code>) or <code>dashcd events query</code> reads the rest.</p>`;
}

function filterForm(env: string, events: readonly ConsoleEvent[], filter: EventFilter): string {
  const types = [...new Set(events.map((e) => e.type))].sort();
  const option = (value: string, label: string, selected: string | undefined): string => `<option value="${h(value)}"${selected === value ? ' selected' : ''}>${h(label)}</option>`;
  return `<form class="filter" method="get" action="${envPath(env, '/events')}">
<label>Type<select name="type">${option('', 'any', filter.type ?? '')}${types.map((t) => option(t, t, filter.type)).join('')}</select></label>
<label>Status<select name="status">${option('', 'any', filter.status ?? '')}${option('OPEN', 'open', filter.status)}${option('CLOSED', 'closed', filter.status)}</select></label>
<label>Entity or id<input name="q" value="${h(filter.text ?? '')}"></label><button type="submit">Filter</button></form>`;
}

function matches(event: ConsoleEvent, filter: EventFilter): boolean {
  if (filter.type !== undefined && event.type !== filter.type) return false;
  if (filter.status !== undefined && event.status !== filter.status) return false;
  const text = filter.text?.toLowerCase();
  return text === undefined || event.id.toLowerCase().includes(text) || (event.entity ?? '').toLowerCase().includes(text);
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 19);
}
