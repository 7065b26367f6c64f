import { Pool } from 'undici';
import type { EventSetInfo } from '../data/events.js';
import { runLoad } from '../load/run-load.js';
import type { Measurement } from '../lib/repeat.js';
import { authHeaders, endpointParts, type Endpoint } from '../lib/seed.js';

export const VARIANTS = ['no filter', 'eventType', 'entityId'] as const;
export type Variant = (typeof VARIANTS)[number];
export const POSITIONS = ['newest', 'middle', 'oldest'] as const;
export type Position = (typeof POSITIONS)[number];

/** One page the figure asks for again and again: the same place in the feed on dashcd and on the naive server. */
export interface PageTarget {
  variant: Variant;
  position: Position;
  /** Query string for dashcd: the first query, or its cursor for that page. */
  dashcdQuery: string;
  /** Query string for the naive server: its own cursor format, positioned after the same event. */
  naiveQuery: string;
}

export function firstQuery(info: EventSetInfo, variant: Variant): string {
  const q = new URLSearchParams({ from: String(info.fromMs), to: String(info.toMs) });
  if (variant === 'eventType') q.set('eventType', info.filterEventType);
  if (variant === 'entityId') q.set('entityId', info.filterEntityId);
  return q.toString();
}

interface WalkedPage {
  query: string;
  /** The last event of the page before, where a keyset cursor for this page points. */
  after?: { startTime: number; id: string };
}

interface FeedPage {
  events: { id: string; startTime: number }[];
  nextCursor?: string | null;
}

export const eventsPath = (endpoint: Endpoint, query: string): string => `${endpointParts(endpoint).prefix}/api/v1/events?${query}`;

/** Pages through one query with nextCursor (setup), keeping each page's query so any page can be asked for again. */
export async function walkFeed(endpoint: Endpoint, info: EventSetInfo, variant: Variant): Promise<WalkedPage[]> {
  const pool = new Pool(endpointParts(endpoint).origin, { connections: 1 });
  const pages: WalkedPage[] = [];
  let page: WalkedPage = { query: firstQuery(info, variant) };
  try {
    for (;;) {
      pages.push(page);
      const res = await pool.request({ path: eventsPath(endpoint, page.query), method: 'GET', headers: authHeaders(endpoint) });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`events page answered ${res.statusCode}: ${body.slice(0, 300)}`);
      const parsed = JSON.parse(body) as FeedPage;
      const last = parsed.events[parsed.events.length - 1];
      if (!parsed.nextCursor || !last) break;
      page = { query: `cursor=${encodeURIComponent(parsed.nextCursor)}`, after: { startTime: last.startTime, id: last.id } };
    }
  } finally {
    await pool.close();
  }
  return pages;
}

function naiveQuery(info: EventSetInfo, variant: Variant, page: WalkedPage): string {
  if (!page.after) return firstQuery(info, variant);
  const state: Record<string, unknown> = { from: info.fromMs, to: info.toMs, after: page.after };
  if (variant === 'eventType') state['eventType'] = info.filterEventType;
  if (variant === 'entityId') state['entityId'] = info.filterEntityId;
  return `cursor=${Buffer.from(JSON.stringify(state)).toString('base64url')}`;
}

/** The newest, middle and oldest page of each query variant. */
export async function pageTargets(
  endpoint: Endpoint,
  info: EventSetInfo,
  variants: readonly Variant[] = VARIANTS,
): Promise<{ targets: PageTarget[]; pagesPerVariant: Record<string, number> }> {
  const targets: PageTarget[] = [];
  const pagesPerVariant: Record<string, number> = {};
  for (const variant of variants) {
    const pages = await walkFeed(endpoint, info, variant);
    pagesPerVariant[variant] = pages.length;
    const at: Record<Position, WalkedPage | undefined> = { newest: pages[0], middle: pages[Math.floor((pages.length - 1) / 2)], oldest: pages[pages.length - 1] };
    for (const position of POSITIONS) {
      const page = at[position];
      if (page) targets.push({ variant, position, dashcdQuery: page.query, naiveQuery: naiveQuery(info, variant, page) });
    }
  }
  return { targets, pagesPerVariant };
}

export const targetKey = (t: Pick<PageTarget, 'variant' | 'position'>): string => `${t.variant}/${t.position}`;

/** Asks for each target page `samples` times in a row over one connection: per-page latency, no queueing. */
export async function measurePages(endpoint: Endpoint, targets: readonly PageTarget[], samples: number, which: 'dashcd' | 'naive'): Promise<Measurement> {
  const out: Measurement = {};
  for (const t of targets) {
    const result = await runLoad({
      origin: endpointParts(endpoint).origin,
      method: 'GET',
      paths: [eventsPath(endpoint, which === 'dashcd' ? t.dashcdQuery : t.naiveQuery)],
      headers: authHeaders(endpoint),
      connections: 1,
      maxRequests: samples,
      durationMs: Math.max(10_000, samples * 1_000),
      okStatuses: [200],
    });
    if (result.errors > 0) throw new Error(`${which} page ${targetKey(t)}: ${result.errors} failed requests: ${result.failureExample ?? ''}`);
    out[`p99 ${targetKey(t)}`] = result.latencyMs.p99;
    out[`p50 ${targetKey(t)}`] = result.latencyMs.p50;
  }
  return out;
}
