import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Pool } from 'undici';
import type { EventSetInfo } from '../data/events.js';
import type { FigureContext } from '../lib/figure.js';
import type { Measurement } from '../lib/repeat.js';
import { authHeaders, endpointParts, type Endpoint } from '../lib/seed.js';
import { summarizeLatencies } from '../lib/stats.js';
import { eventsPath, firstQuery, VARIANTS, type Variant } from './event-pages.js';

/** Page bodies kept from a pass for the bare server; cycled, they stand for every page of the same pass. */
const KEPT_PAGES = 50;

/** One full pass's figures, the p99 the goal is about first. */
export interface PassResult {
  pages: number;
  p50: number;
  p99: number;
  max: number;
}

/** Asks for one path and reads the body whole: the time a client waits before it could parse the page. */
async function timedGet(pool: Pool, path: string, headers: Record<string, string>): Promise<{ ms: number; body: Buffer }> {
  const started = performance.now();
  const res = await pool.request({ path, method: 'GET', headers });
  const chunks: Buffer[] = [];
  for await (const chunk of res.body) chunks.push(chunk as Buffer);
  const ms = performance.now() - started;
  const body = Buffer.concat(chunks);
  if (res.statusCode !== 200) throw new Error(`${path} answered ${res.statusCode}: ${body.toString().slice(0, 300)}`);
  return { ms, body };
}

function summarizePass(latencies: readonly number[]): PassResult {
  const s = summarizeLatencies(Float64Array.from(latencies));
  return { pages: latencies.length, p50: s.p50, p99: s.p99, max: s.max };
}

/**
 * Every page of one query, in order, over one connection, following `nextCursor` as `dashcd events pull` does.
 * Each page is timed from request to last body byte; the JSON parse that finds the cursor is outside the timing.
 * `keep` collects up to KEPT_PAGES bodies spread over the pass (for the bare baseline).
 */
export async function dashcdPass(endpoint: Endpoint, query: string, keep?: Buffer[]): Promise<PassResult> {
  const pool = new Pool(endpointParts(endpoint).origin, { connections: 1 });
  const latencies: number[] = [];
  const headers = authHeaders(endpoint);
  try {
    for (let next: string | null | undefined = query; next; ) {
      const { ms, body } = await timedGet(pool, eventsPath(endpoint, next), headers);
      latencies.push(ms);
      if (keep && keep.length < KEPT_PAGES && latencies.length % 7 === 1) keep.push(body);
      const page = JSON.parse(body.toString()) as { nextCursor?: string | null };
      next = page.nextCursor ? `cursor=${encodeURIComponent(page.nextCursor)}` : undefined;
    }
  } finally {
    await pool.close();
  }
  return summarizePass(latencies);
}

/** The same number of requests, same client, against a server answering kept page bodies from memory. */
export async function barePass(origin: string, pages: number, kept: number): Promise<PassResult> {
  const pool = new Pool(origin, { connections: 1 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < pages; i++) {
      const { ms, body } = await timedGet(pool, `/page/${i % kept}`, {});
      latencies.push(ms);
      JSON.parse(body.toString());
    }
  } finally {
    await pool.close();
  }
  return summarizePass(latencies);
}

/** The bytes file the bare server serves: `/page/<i>` → a kept page body. */
export async function writeKeptPages(ctx: FigureContext, kept: readonly Buffer[]): Promise<string> {
  const file = join(ctx.workDir, 'pages.json');
  await writeFile(file, JSON.stringify(Object.fromEntries(kept.map((b, i) => [`/page/${i}`, b.toString()]))));
  return file;
}

/** The query for each pass: the three single variants, plus entity and type together (a first page only). */
export function passQuery(info: EventSetInfo, variant: Variant | 'entity+type'): string {
  if (variant !== 'entity+type') return firstQuery(info, variant);
  const q = new URLSearchParams(firstQuery(info, 'entityId'));
  q.set('eventType', info.filterEventType);
  return q.toString();
}

/** A full pass of every variant as one measurement: `p99 <variant>`, `p50 <variant>`, `max <variant>`, `pages <variant>`. */
export async function allPasses(run: (variant: Variant) => Promise<PassResult>): Promise<Measurement> {
  const out: Measurement = {};
  for (const variant of VARIANTS) {
    const r = await run(variant);
    out[`p99 ${variant}`] = r.p99;
    out[`p50 ${variant}`] = r.p50;
    out[`max ${variant}`] = r.max;
    out[`pages ${variant}`] = r.pages;
  }
  return out;
}

/** One page asked for `times` times in a row (a first page, where no cursor can be followed). */
export async function repeatPage(endpoint: Endpoint, query: string, times: number): Promise<PassResult> {
  const pool = new Pool(endpointParts(endpoint).origin, { connections: 1 });
  const latencies: number[] = [];
  try {
    for (let i = 0; i < times; i++) latencies.push((await timedGet(pool, eventsPath(endpoint, query), authHeaders(endpoint))).ms);
  } finally {
    await pool.close();
  }
  return summarizePass(latencies);
}
