import { requireComponent, runBaselineTask } from '../lib/cli.js';
import { curveFrom, type CurvePoint, type Figure, type FigureContext, type FigureOutcome } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { summarize } from '../lib/stats.js';
import { changedFiles, dashboardSet, snapshotFiles } from './dashboard-set.js';
import { applyAll, freshServer, noOpPlan } from './reconcile-runs.js';

/** Curve points are medians of fewer runs than the headline figures: a 20,000-dashboard plan is long. */
const CURVE_RUNS = 3;
const MAX_SECONDS_AT_SCALE = 4;

const MAX_SECONDS = 1.5;
const PLAN_MODULES = ['desired/load-desired.js', 'plan/build-plan.js', 'client/api-client.js'];

async function measurePlan(ctx: FigureContext): Promise<FigureOutcome> {
  await requireComponent(['plan'], PLAN_MODULES);
  await requireComponent(['apply']);
  const count = ctx.sizes.dashboards;
  const dir = await dashboardSet(ctx, count);
  const server = await freshServer(ctx);
  try {
    ctx.progress(`applying ${count} dashboards (setup)`);
    await applyAll(ctx, server, dir, count, false);
    // Snapshots only of settled files: the setup apply's writes are still being materialised behind the journal.
    await server.settled();
    const before = await snapshotFiles(server.arg);
    const samples = await repeatTasks(ctx, {
      dashcd: async () => ({ seconds: (await noOpPlan(ctx, server, dir, count)).wallMs / 1000 }),
      naive: async () => ({ seconds: (await runBaselineTask('naive-plan', { dir, endpoint: server.endpoint }, { cwd: ctx.workDir })).wallMs / 1000 }),
    });
    await server.settled();
    const written = changedFiles(before, await snapshotFiles(server.arg));
    const seconds = metric(samples.dashcd, 'seconds');
    return {
      rows: [
        { label: `no-op dashcd plan over ${count.toLocaleString('en-US')} dashboards, wall time`, unit: 's', better: 'lower', value: seconds, baseline: { label: 'naive: per file parseDocument, sequential GET, diff (own process)', value: metric(samples.naive, 'seconds') }, goal: { text: `≤ ${MAX_SECONDS} s`, met: seconds.median <= MAX_SECONDS, limit: MAX_SECONDS } },
        { label: 'files written in the data dir during all the no-op plans', unit: 'files', better: 'lower', value: summarize([written.length]), goal: { text: '0 writes', met: written.length === 0 } },
      ],
      details: { dashboards: count, written: written.slice(0, 10), measuredAs: 'spawn to exit of `dashcd plan --output json --detailed-exitcode` against a dashcd server process' },
    };
  } finally {
    await server.stop();
  }
}

async function planAtSize(ctx: FigureContext, count: number): Promise<CurvePoint> {
  const dir = await dashboardSet(ctx, count);
  const server = await freshServer(ctx);
  try {
    ctx.progress(`applying ${count} dashboards (setup)`);
    await applyAll(ctx, server, dir, count, false);
    // As for the 1,000-dashboard figure: the plans meet a settled server, not one still writing the setup's files
    // behind its journal (at 10,000 that took the first plans' CPU, and their time, for seconds).
    await server.settled();
    const samples = await repeatTasks({ ...ctx, runs: Math.min(ctx.runs, CURVE_RUNS) }, { [`plan-${count}`]: async () => ({ seconds: (await noOpPlan(ctx, server, dir, count)).wallMs / 1000 }) });
    const seconds = metric(samples[`plan-${count}`] ?? {}, 'seconds').median;
    return { size: count, value: seconds, unit: 's', perItem: (seconds * 1000) / count, perItemUnit: 'ms/dashboard' };
  } finally {
    await server.stop();
  }
}

async function measurePlanGrowth(ctx: FigureContext): Promise<FigureOutcome> {
  await requireComponent(['plan'], PLAN_MODULES);
  await requireComponent(['apply']);
  const points: CurvePoint[] = [];
  for (const count of ctx.sizes.planCurve) points.push(await planAtSize(ctx, count));
  const curve = curveFrom('no-op plan', 'dashboards', points);
  const last = points[points.length - 1];
  const atScale = points.find((p) => p.size === ctx.sizes.planAtScale);
  return {
    rows: [
      {
        label: `no-op dashcd plan over ${ctx.sizes.planAtScale.toLocaleString('en-US')} dashboards, wall time (median of ${Math.min(ctx.runs, CURVE_RUNS)})`,
        unit: 's',
        better: 'lower',
        value: summarize([atScale?.value ?? Number.NaN]),
        goal: { text: `≤ ${MAX_SECONDS_AT_SCALE} s`, met: (atScale?.value ?? Number.POSITIVE_INFINITY) <= MAX_SECONDS_AT_SCALE },
      },
      {
        label: `no-op plan cost per dashboard at ${last?.size.toLocaleString('en-US') ?? '?'} dashboards`,
        unit: 'ms',
        better: 'lower',
        value: summarize([last?.perItem ?? Number.NaN]),
        goal: { text: 'per-item cost growth over the last size step ≤ 2×', met: curve.growth <= 2 },
        note: `growth ${curve.growth.toFixed(2)}×`,
      },
    ],
    curves: [curve],
  };
}

export const planFigure: Figure = { name: 'plan', title: 'no-op plan over 1,000 dashboards', goal: '≤ 1.5 s and 0 writes', run: measurePlan };

export const planGrowthFigure: Figure = {
  name: 'plan-growth',
  title: 'plan cost at 100 / 1,000 / 10,000 / 20,000 dashboards',
  goal: '≤ 4 s at 10,000; flat cost per dashboard',
  run: measurePlanGrowth,
};
