import type { Figure, FigureContext, FigureOutcome, Row } from '../lib/figure.js';
import { metric, repeatTasks, type Measurement } from '../lib/repeat.js';
import { startServerProcess, withServer } from '../lib/servers.js';
import { summarize, type Sample } from '../lib/stats.js';
import { eventFixture, requireEventsFeed } from './event-set.js';
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

/** Start-up over the stored events, as a fresh process each run: fork → listening, index built. */
async function measureStarts(ctx: FigureContext, dataDir: string): Promise<Record<string, Sample>> {
  const samples = await repeatTasks(ctx, {
    start: async () => {
      const server = await startServerProcess(ctx, 'dashcd', dataDir);
      const memory = server.memory();
      await server.stop();
      return { seconds: server.startMs / 1000, rss: memory.rssMb };
    },
  });
  return samples.start;
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
      const naiveMemory = naive.memory();
      const rss = summarize([memory.rssMb]);
      const start = metric(starts, 'seconds');
      return {
        rows: [
          ...pageRows(samples.dashcd, samples.naive, count),
          { label: `server RSS holding ${count.toLocaleString('en-US')} events, after paging`, unit: 'MB', better: 'lower', value: rss, baseline: { label: 'naive server holding every event as a JS object', value: summarize([naiveMemory.rssMb]) }, goal: { text: `≤ ${MAX_RSS_MB} MB`, met: rss.median <= MAX_RSS_MB }, note: `peak ${Math.round(memory.peakRssMb)} MB` },
          { label: `server start over ${count.toLocaleString('en-US')} stored events`, unit: 's', better: 'lower', value: start, baseline: { label: 'naive server parsing the JSONL into objects', value: summarize([naive.startMs / 1000]) }, goal: { text: `≤ ${MAX_START_S} s`, met: start.median <= MAX_START_S } },
        ],
        details: { events: count, pagesPerVariant, pageMs: pageMatrix(samples.dashcd, targets), naivePageMs: pageMatrix(samples.naive, targets), samplesPerPage: ctx.sizes.pageSamples, baselineSamplesPerPage: ctx.sizes.baselinePageSamples, rssAfterStartMb: metric(starts, 'rss'), naivePeakRssMb: naiveMemory.peakRssMb },
      };
    });
  });
}

export const eventsPageFigure: Figure = {
  name: 'events-page',
  title: 'events page latency at 1,000,000 events',
  goal: 'p99 ≤ 5 ms; RSS ≤ 500 MB; start ≤ 5 s',
  run: measureEventsPage,
};
