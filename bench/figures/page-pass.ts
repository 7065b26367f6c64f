import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { EventSetInfo } from '../data/events.js';
import type { FigureContext } from '../lib/figure.js';
import type { Measurement } from '../lib/repeat.js';
import { authHeaders, endpointParts, type Endpoint } from '../lib/seed.js';
import { PauseCorrectedTimer } from '../lib/client-pauses.js';
import { summarizeLatencies } from '../lib/stats.js';
import { eventsPath, firstQuery, VARIANTS, type Variant } from './event-pages.js';

/** Page bodies kept from a pass for the bare server; cycled, they stand for every page of the same pass. */
const KEPT_PAGES = 50;

/**
 * One full pass's figures, the p99 the goal is about first; `pausedPages` had time taken out of them for the
 * client's own collections, `pausedMs` in all (see PauseCorrectedTimer).
 */
export interface PassResult {
  /** Pages timed in all, over `passes` full passes. */
  pages: number;
  passes: number;
  p50: number;
  p99: number;
  max: number;
  pausedPages: number;
  pausedMs: number;
}

/** Asks for one path and reads the body whole: the time a client waits before it could parse the page. */
async function timedGet(pool: Pool, path: string, headers: Record<string, string>, timer: PauseCorrectedTimer): Promise<Buffer> {
  const start = performance.now();
  const res = await pool.request({ path, method: 'GET', headers });
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk as Buffer);
  timer.record({ start, end: performance.now() });
  const body = Buffer.concat(chunks);
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${body.toString().slice(0, 300)}`);
  return body;
}

/** Runs `requests` with one connection to `origin` and a timer, and sums up what the timer saw. */
async function timedPass(origin: string, headers: Record<string, string>, requests: (get: (path: string) => Promise<Buffer>) => Promise<number | void>): Promise<PassResult> {
  const pool = new Pool(origin, { connections: 1 });
  const timer = new PauseCorrectedTimer();
  let passes: number | void;
  try {
    passes = await requests((path) => timedGet(pool, path, headers, timer));
  } finally {
    await pool.close();
  }
  const { ms, pausedRequests, pausedMs } = await timer.finish();
  const s = summarizeLatencies(Float64Array.from(ms));
  return { pages: ms.length, passes: passes ?? 1, p50: s.p50, p99: s.p99, max: s.max, pausedPages: pausedRequests, pausedMs };
}

/**
 * A pass is repeated until this many pages are timed: a query of 17 pages made its p99 the slowest of 17 requests
 * (51 over three runs), one scheduling hiccup away from any goal. At 200 a p99 was the second slowest page, and the
 * ratio to the bare server by event type (one pass of 844 pages) read 1.28–1.62× in sittings of the same events code;
 * at 1,000 it is the tenth. A pass of 1,000 pages or more runs once.
 */
export const MIN_TIMED_PAGES = 1000;

/**
 * Every page of one query, in order, over one connection, following `nextCursor` as `dashcd events pull` does; whole
 * passes again until `minPages` are timed. Each page is timed from request to last body byte, less the client's own
 * collection pauses in between; the JSON parse that finds the cursor is outside the timing.
 * `keep` collects up to KEPT_PAGES bodies spread over the first pass (for the bare baseline).
 */
export function dashcdPass(endpoint: Endpoint, query: string, minPages: number, keep?: Buffer[]): Promise<PassResult> {
  return timedPass(endpointParts(endpoint).origin, authHeaders(endpoint), async (get) => {
    let pages = 0;
    let passes = 0;
    do {
      passes += 1;
      for (let next: string | null | undefined = query; next; ) {
        const body = await get(eventsPath(endpoint, next));
        pages += 1;
        if (keep && passes === 1 && keep.length < KEPT_PAGES && pages % 7 === 1) keep.push(body);
        const page = JSON.parse(body.toString()) as { nextCursor?: string | null };
        next = page.nextCursor ? `cursor=${encodeURIComponent(page.nextCursor)}` : undefined;
      }
    } while (pages < minPages);
    return passes;
  });
}

/**
 * The same number of requests, same client and same request headers (the token, which it ignores), against a bare
 * server answering `kept` pages in turn: `/page/<i>` from memory, or `<prefix><i>` (see loggedPagePath).
 */
export function barePass(origin: string, headers: Record<string, string>, pages: number, kept: number, prefix = '/page/'): Promise<PassResult> {
  return timedPass(origin, headers, async (get) => {
    for (let i = 0; i < pages; i++) JSON.parse((await get(`${prefix}${i % kept}`)).toString());
  });
}

/** The bytes file the bare server serves: `/page/<i>` → a kept page body. */
export async function writeKeptPages(ctx: FigureContext, kept: readonly Buffer[]): Promise<string> {
  const file = join(ctx.workDir, 'pages.json');
  await writeFile(file, JSON.stringify(Object.fromEntries(kept.map((b, i) => [`/page/${i}`, b.toString()]))));
  return file;
}

/** Where the bare server doing dashcd's reads answers a variant's kept pages: `<prefix><i>`. */
export function loggedPagePrefix(variant: Variant): string {
  return `/${encodeURIComponent(variant)}/`;
}

/** The query for each pass: the three single variants, plus entity and type together (a first page only). */
export function passQuery(info: EventSetInfo, variant: Variant | 'entity+type'): string {
  if (variant !== 'entity+type') return firstQuery(info, variant);
  const q = new URLSearchParams(firstQuery(info, 'entityId'));
  q.set('eventType', info.filterEventType);
  return q.toString();
}

/** A full pass of every variant as one measurement (see passMeasurement). */
export async function allPasses(run: (variant: Variant) => Promise<PassResult>): Promise<Measurement> {
  const out: Measurement = {};
  for (const variant of VARIANTS) Object.assign(out, passMeasurement(variant, await run(variant)));
  return out;
}

/** One pass's figures as a measurement, each key ending in `key` (the query's name). */
export function passMeasurement(key: string, r: PassResult): Measurement {
  return {
    [`p99 ${key}`]: r.p99,
    [`p50 ${key}`]: r.p50,
    [`max ${key}`]: r.max,
    [`pages ${key}`]: r.pages,
    [`passes ${key}`]: r.passes,
    [`client-paused pages ${key}`]: r.pausedPages,
    [`client-paused ms ${key}`]: r.pausedMs,
  };
}

/** One page asked for `times` times in a row (a first page, where no cursor can be followed). */
export function repeatPage(endpoint: Endpoint, query: string, times: number): Promise<PassResult> {
  return timedPass(endpointParts(endpoint).origin, authHeaders(endpoint), async (get) => {
    for (let i = 0; i < times; i++) JSON.parse((await get(eventsPath(endpoint, query))).toString());
  });
}
