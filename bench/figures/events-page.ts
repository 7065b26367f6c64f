import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { INDEX_SNAPSHOT_FILE } from '../../src/server/feed/index-snapshot.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import type { Figure, FigureContext, FigureOutcome, Row } from '../lib/figure.js';
import { metric, repeatTasks, type Measurement } from '../lib/repeat.js';
import type { ProcMemory } from '../lib/child.js';
import { startServerProcess, withServer, type ServerUnderTest } from '../lib/servers.js';
import { summarize, type Sample } from '../lib/stats.js';
import { EVENTS_LANE, eventFixture, requireEventsFeed } from './event-set.js';
import { measurePages, pageTargets, POSITIONS, VARIANTS, targetKey, type PageTarget } from './event-pages.js';

const MAX_P99_MS = 5;
const MAX_RSS_MB = 500;
const MAX_START_S = 5;

/** Adds, per query variant, the worst p99 over the newest, middle and oldest page: the figure the goal is about. */
function withWorst(m: Measurement): Measurement {
  const out = { ...m };
  for (const v of VARIANTS) out[`worst ${v}`] = Math.max(...POSITIONS.map((p) => m[`p99 ${targetKey({ variant: v, position: p })}`] ?? Number.NaN));
  return out;
}

/**
 * Start-up over the stored events, as a fresh process each run: fork → listening, index built. `warm` finds the
 * index snapshot the previous close wrote; `cold` has it removed first, as after a crash, so the whole log is read.
 */
async function measureStarts(ctx: FigureContext, dataDir: string): Promise<Record<'warm' | 'cold', Record<string, Sample>>> {
  const snapshot = join(dataDirLayout(dataDir).eventsDir(DEFAULT_ENVIRONMENT), INDEX_SNAPSHOT_FILE);
  const startOnce = async (): Promise<Measurement> => {
    const server = await startServerProcess(ctx, 'dashcd', dataDir);
    const memory = server.memory();
    await server.stop();
    return { seconds: server.startMs / 1000, rss: memory.rssMb };
  };
  return repeatTasks(ctx, {
    warm: startOnce,
    cold: async () => {
      await rm(snapshot, { force: true });
      return startOnce();
    },
  });
}

function pageRows(dashcd: Record<string, Sample>, naive: Record<string, Sample>, count: number): Row[] {
  return VARIANTS.map((v) => {
    const value = metric(dashcd, `worst ${v}`);
    const perPosition = POSITIONS.map((p) => `${p} ${metric(dashcd, `p99 ${targetKey({ variant: v, position: p })}`).median.toFixed(2)}`).join(' / ');
    return {
      label: `events page p99 at ${count.toLocaleString('en-US')} events, ${v}, worst of newest/middle/oldest`,
      unit: 'ms',
      better: 'lower',
      value,
      baseline: { label: 'filter and sort all events per page', value: metric(naive, `worst ${v}`) },
      goal: { text: `≤ ${MAX_P99_MS} ms`, met: value.median <= MAX_P99_MS },
      note: `p99 ms ${perPosition}`,
    } satisfies Row;
  });
}

/** Median p50 and p99 of every page asked for, for readers who want more than the worst case. */
function pageMatrix(samples: Record<string, Sample>, targets: readonly PageTarget[]): Record<string, { p50: number; p99: number }> {
  const round = (n: number): number => Math.round(n * 100) / 100;
  return Object.fromEntries(
    targets.map((t) => [targetKey(t), { p50: round(metric(samples, `p50 ${targetKey(t)}`).median), p99: round(metric(samples, `p99 ${targetKey(t)}`).median) }]),
  );
}

/** RSS after paging and start-up with and without the snapshot, each beside the naive server's. */
function serverRows(count: number, memory: ProcMemory, naive: ServerUnderTest, starts: Awaited<ReturnType<typeof measureStarts>>): Row[] {
  const n = count.toLocaleString('en-US');
  const rss = summarize([memory.rssMb]);
  const load = { label: 'naive server parsing the JSONL into objects', value: summarize([naive.startMs / 1000]) };
  const start = (label: string, value: Sample): Row => ({ label, unit: 's', better: 'lower', value, baseline: load, goal: { text: `≤ ${MAX_START_S} s`, met: value.median <= MAX_START_S } });
  return [
    { label: `server RSS holding ${n} events, after paging`, unit: 'MB', better: 'lower', value: rss, baseline: { label: 'naive server holding every event as a JS object', value: summarize([naive.memory().rssMb]) }, goal: { text: `≤ ${MAX_RSS_MB} MB`, met: rss.median <= MAX_RSS_MB }, note: `peak ${Math.round(memory.peakRssMb)} MB` },
    start(`server start over ${n} stored events`, metric(starts.warm, 'seconds')),
    start(`server start over ${n} stored events without the index snapshot (as after a crash)`, metric(starts.cold, 'seconds')),
  ];
}

async function measureEventsPage(ctx: FigureContext): Promise<FigureOutcome> {
  await requireEventsFeed({ pull: false });
  const count = ctx.sizes.events;
  const fx = await eventFixture(ctx, count);
  const starts = await measureStarts(ctx, fx.dataDir);
  return withServer(ctx, 'dashcd', fx.dataDir, async (dashcd) => {
    ctx.progress('walking the feed to find the newest, middle and oldest page of each query');
    const { targets, pagesPerVariant } = await pageTargets(dashcd.endpoint, fx.info);
    return withServer(ctx, 'naive-events', fx.jsonl, async (naive) => {
      const samples = await repeatTasks(ctx, {
        dashcd: async () => withWorst(await measurePages(dashcd.endpoint, targets, ctx.sizes.pageSamples, 'dashcd')),
        naive: async () => withWorst(await measurePages(naive.endpoint, targets, ctx.sizes.baselinePageSamples, 'naive')),
      });
      const memory = dashcd.memory();
      return {
        rows: [...pageRows(samples.dashcd, samples.naive, count), ...serverRows(count, memory, naive, starts)],
        details: { events: count, pagesPerVariant, pageMs: pageMatrix(samples.dashcd, targets), naivePageMs: pageMatrix(samples.naive, targets), samplesPerPage: ctx.sizes.pageSamples, baselineSamplesPerPage: ctx.sizes.baselinePageSamples, rssAfterStartMb: metric(starts.warm, 'rss'), peakRssMb: memory.peakRssMb },
      };
    });
  });
}

export const eventsPageFigure: Figure = {
  name: 'events-page',
  title: 'events page latency at 1,000,000 events',
  goal: 'p99 ≤ 5 ms; RSS ≤ 500 MB; start ≤ 5 s',
  lane: EVENTS_LANE,
  run: measureEventsPage,
};
