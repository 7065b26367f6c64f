import { curveFrom, type Curve, type CurvePoint, type Figure, type FigureContext, type FigureOutcome, type Row } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { withServer } from '../lib/servers.js';
import { startServeCommand } from '../lib/cli-server.js';
import { summarize } from '../lib/stats.js';
import { measurePages, pageTargets, targetKey } from './event-pages.js';
import { pullOnce } from './events-pull.js';
import { EVENTS_LANE, eventFixture, requireEventsFeed } from './event-set.js';

/** Curve points are medians of fewer runs than the headline figures: there are many of them, and 1M-event runs are long. */
const CURVE_RUNS = 3;

interface SizePoint {
  size: number;
  startS: number;
  rssMb: number;
  oldestP99Ms: number;
  pullS: number;
}

async function measureSize(ctx: FigureContext, size: number): Promise<SizePoint> {
  const fx = await eventFixture(ctx, size);
  const quick = { ...ctx, runs: Math.min(ctx.runs, CURVE_RUNS), warmups: Math.min(ctx.warmups, 1) };
  const starts = await repeatTasks(quick, {
    [`start ${size}`]: async () => {
      const server = await startServeCommand(ctx, fx.dataDir);
      await server.stop();
      return { seconds: server.startMs / 1000 };
    },
  });
  return withServer(ctx, 'dashcd', fx.dataDir, async (server) => {
    const { targets } = await pageTargets(server.endpoint, fx.info, ['no filter']);
    const oldest = targets.filter((t) => t.position === 'oldest');
    const samples = await repeatTasks(quick, {
      pages: () => measurePages(server.endpoint, oldest, ctx.sizes.pageSamples, 'dashcd'),
      pull: () => pullOnce(ctx, server, size, false),
    });
    return {
      size,
      startS: metric(starts[`start ${size}`] ?? {}, 'seconds').median,
      rssMb: server.memory().rssMb,
      oldestP99Ms: metric(samples.pages, `p99 ${targetKey({ variant: 'no filter', position: 'oldest' })}`).median,
      pullS: metric(samples.pull, 'seconds').median,
    };
  });
}

function curves(points: readonly SizePoint[]): Curve[] {
  const make = (label: string, pick: (p: SizePoint) => CurvePoint): Curve => curveFrom(label, 'events', points.map(pick));
  return [
    make('server start', (p) => ({ size: p.size, value: p.startS, unit: 's', perItem: (p.startS * 1e6) / p.size, perItemUnit: 'µs/event' })),
    make('server RSS after paging', (p) => ({ size: p.size, value: p.rssMb, unit: 'MB', perItem: (p.rssMb * 1024 * 1024) / p.size, perItemUnit: 'bytes/event' })),
    make('oldest page p99 (no filter)', (p) => ({ size: p.size, value: p.oldestP99Ms, unit: 'ms', perItem: p.oldestP99Ms, perItemUnit: 'ms/page' })),
    make('events pull', (p) => ({ size: p.size, value: p.pullS, unit: 's', perItem: (p.pullS * 1e6) / p.size, perItemUnit: 'µs/event' })),
  ];
}

async function measureGrowth(ctx: FigureContext): Promise<FigureOutcome> {
  await requireEventsFeed({ pull: true });
  const points: SizePoint[] = [];
  for (const size of ctx.sizes.eventsCurve) points.push(await measureSize(ctx, size));
  const all = curves(points);
  const rows: Row[] = all.map((c) => {
    const last = c.points[c.points.length - 1];
    return {
      label: `${c.label}: cost per item at ${last?.size.toLocaleString('en-US') ?? '?'} events`,
      unit: last?.perItemUnit ?? '',
      better: 'lower',
      value: summarize([last?.perItem ?? Number.NaN]),
      goal: { text: 'per-item cost growth over the last size step ≤ 2×', met: c.growth <= 2 },
      note: `growth ${c.growth.toFixed(2)}×`,
    };
  });
  return { rows, curves: all, details: { curveRuns: Math.min(ctx.runs, CURVE_RUNS) } };
}

export const eventsGrowthFigure: Figure = {
  name: 'events-growth',
  title: 'events cost at 10k / 100k / 1M events',
  goal: 'flat cost per event',
  lane: EVENTS_LANE,
  run: measureGrowth,
};
