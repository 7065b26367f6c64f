import { renderLayoutSvg } from '../preview/render-layout.js';
import { patchedPicture } from '../preview/plan-pictures.js';
import { diffLine } from '../preview/render-html.js';
import { patchLines } from '../plan/patch-lines.js';
import type { ConsoleEnvironment } from './console-data.js';
import { envPath, h, page } from './page-shell.js';
import { statusCounts, type DashboardRow } from './sync-rows.js';

/**
 * One card per environment: its target, revision and notes, and how many of its dashboards are in each sync state
 * (`rows`: the same rows its dashboards page lists, from what the console source already holds; undefined: none known).
 */
export function environmentsPage(environments: readonly ConsoleEnvironment[], rows: readonly (readonly DashboardRow[] | undefined)[] = []): string {
  const cards = environments.map((e, i) => {
    const notes = (e.notes ?? []).map((n) => `<li>${h(n)}</li>`).join('');
    const known = rows[i];
    const counts = known === undefined ? '' : `<p class="counts">${known.length === 0 ? '<span class="muted">No dashboards.</span>' : statusChips(e.name, known).join(' ')}</p>`;
    return `<section class="card environment" data-env="${h(e.name)}"><h2><a href="${envPath(e.name)}">${h(e.name)}</a></h2>
<p class="muted">${h(e.target)}</p>${counts}${e.revision ? `<p>Revision <code>${h(e.revision)}</code></p>` : ''}${notes ? `<ul>${notes}</ul>` : ''}
<p><a href="${envPath(e.name)}">Dashboards</a> · <a href="${envPath(e.name, '/events')}">Events</a></p></section>`;
  });
  return page('Environments', undefined, `<div class="cards">${cards.join('\n')}</div>`);
}

/** `3 synced`, `1 drifted`…: one chip per status with dashboards, linking to the dashboards page filtered to it. */
function statusChips(env: string, rows: readonly DashboardRow[]): string[] {
  return statusCounts(rows).map(([s, n]) => `<a href="${envPath(env)}?status=${s}"><span class="status status-${s}" data-status="${s}" data-count="${n}">${n} ${s}</span></a>`);
}

/**
 * The dashboards of one environment — classic ones, platform dashboards and notebooks, each with its kind — with their
 * sync status; `status` keeps only those (a count links to each).
 */
export function dashboardsPage(env: string, rows: readonly DashboardRow[], filter: string | undefined, revision: string | undefined): string {
  const chips = statusChips(env, rows);
  if (filter !== undefined) chips.push(`<a href="${envPath(env)}">all</a>`);
  const shown = filter === undefined ? rows : rows.filter((r) => r.status === filter);
  const body = shown.map((r) => `<tr class="dashboard" data-status="${r.status}" data-key="${h(r.key)}" data-kind="${h(r.kind ?? '')}">
<td data-label="Dashboard"><a href="${envPath(env, `/dashboard?key=${encodeURIComponent(r.key)}`)}">${h(r.name)}</a></td>
<td data-label="Kind">${r.kind ? h(r.kind) : '<span class="muted">—</span>'}</td>
<td data-label="Status"><span class="status status-${r.status}">${r.status}</span></td>
<td data-label="File">${r.file ? `<code>${h(r.file)}</code>` : '<span class="muted">—</span>'}</td>
<td data-label="Revision">${revision ? `<code>${h(revision)}</code>` : '<span class="muted">—</span>'}</td>
<td data-label="Detail">${h(r.detail)}</td></tr>`);
  const table = `<table class="stack dashboards"><thead><tr><th>Dashboard</th><th>Kind</th><th>Status</th><th>File</th><th>Revision</th><th>Detail</th></tr></thead><tbody>${body.join('\n')}</tbody></table>`;
  const empty = shown.length === 0 ? '<p class="muted">No dashboards.</p>' : '';
  return page(`Dashboards in ${env}`, env, `<div class="counts">${chips.join(' ')}</div>${table}${empty}`);
}

/** One dashboard: status, its problems at file:line:col, its live drift as a before/after picture and diff, its layout. */
export function dashboardPage(env: string, row: DashboardRow, revision: string | undefined): string {
  const facts = [`<span class="status status-${row.status}">${row.status}</span>`, row.kind ? `<span class="kind">${h(row.kind)}</span>` : '', row.file ? `<code>${h(row.file)}</code>` : '', revision ? `revision <code>${h(revision)}</code>` : '', h(row.detail)];
  const parts = [`<p class="facts">${facts.filter((f) => f !== '').join(' · ')}</p>`];
  if (row.problems.length > 0) {
    const items = row.problems.map((p) => `<li><code>${h(`${p.file}:${p.line}:${p.col}`)}</code> ${h(p.path)}: ${h(p.message)}</li>`);
    parts.push(`<h2>Validation problems</h2><ul class="problems">${items.join('')}</ul>`);
  }
  const change = row.change;
  const drift = change && (change.action === 'update' || change.action === 'adopt') ? change : undefined;
  // The drift's picture draws the dashboard twice, the layout once: either only within the bound.
  const drawn = partCount(drift ? drift.desired : row.body);
  const tooLarge = drawn > MAX_DRAWN_PARTS ? `<p class="muted">${drawn} tiles or sections: more than the console draws (${MAX_DRAWN_PARTS}); <code>dashcd preview</code> draws it.</p>` : undefined;
  if (drift) {
    const picture = tooLarge === undefined ? patchedPicture(drift) : undefined;
    parts.push(`<h2>Live drift: live (above) → file (below)</h2>${picture ? `<div class="picture drift">${picture.svg}</div>` : tooLarge}`);
    parts.push(`<pre class="diff">${(picture?.diffLines ?? patchLines(drift)).map(diffLine).join('\n')}</pre>`);
  } else if (row.body !== undefined) {
    parts.push(`<h2>Layout</h2>${tooLarge ?? `<div class="picture layout">${renderLayoutSvg(row.body)}</div>`}`);
  }
  return page(row.name, env, parts.join('\n'));
}

/**
 * The most tiles or sections a page draws. A platform dashboard has no tile limit (a 48 MB one of 21,000 tiles made a
 * 12.8 MB page and held serve's only thread 22 s per view, from loopback without a token); a classic one at most 10,000.
 */
export const MAX_DRAWN_PARTS = 2_000;

/** Tiles of a classic or platform dashboard (a list, or an object by key), or sections of a notebook. */
function partCount(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 0;
  const { tiles, sections } = body as { tiles?: unknown; sections?: unknown };
  const size = (value: unknown): number => (Array.isArray(value) ? value.length : typeof value === 'object' && value !== null ? Object.keys(value).length : 0);
  return size(tiles) + size(sections);
}
