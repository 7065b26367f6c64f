import { requireComponent, runBaselineTask } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { boundedGoal, boundsText, type Bounds } from '../lib/goal.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { applyAll, freshServer, type Target } from './reconcile-runs.js';
import { classicDashboards, platformDashboards, type ReconcileSet } from './reconcile-sets.js';

/** Each run writes into a server on an empty data dir; start-up, the target's token and shutdown are outside the measurement. */
async function onFreshServer(ctx: FigureContext, set: ReconcileSet, body: (target: Target) => Promise<number>): Promise<{ seconds: number }> {
  const server = await freshServer(ctx);
  try {
    return { seconds: (await body(await set.target(server))) / 1000 };
  } finally {
    await server.stop();
  }
}

async function measureApply(ctx: FigureContext, set: ReconcileSet, bounds: Bounds): Promise<FigureOutcome> {
  await requireComponent(['apply'], ['desired/load-desired.js', 'apply/apply-plan.js', ...set.modules]);
  const count = ctx.sizes.dashboards;
  const dir = await set.files(ctx, count);
  const samples = await repeatTasks(ctx, {
    dashcd: () => onFreshServer(ctx, set, async (target) => (await applyAll(ctx, target, dir, count)).wallMs),
    sequential: () => onFreshServer(ctx, set, async (target) => (await runBaselineTask(set.apply.task, { dir, endpoint: target.endpoint }, { cwd: ctx.workDir })).wallMs),
  });
  const seconds = metric(samples.dashcd, 'seconds');
  const sequential = metric(samples.sequential, 'seconds');
  return {
    rows: [
      {
        label: `dashcd apply of ${count.toLocaleString('en-US')} new ${set.noun}, wall time`,
        unit: 's',
        better: 'lower',
        value: seconds,
        baseline: { label: set.apply.label, value: sequential },
        goal: boundedGoal('lower', 's', bounds, seconds, sequential),
      },
    ],
    details: { files: count, measuredAs: 'spawn to exit of `dashcd apply` (validation, target validator, writes) against an empty dashcd server process' },
  };
}

function applyFigureOf(name: string, set: ReconcileSet, bounds: Bounds): Figure {
  return { name, title: `apply of 1,000 new ${set.noun}`, goal: boundsText('lower', 's', bounds, 'sequential writes'), run: (ctx) => measureApply(ctx, set, bounds) };
}

export const applyFigure = applyFigureOf('apply', classicDashboards, { limit: 3, ratio: 0.3 });
export const documentsApplyFigure = applyFigureOf('documents-apply', platformDashboards, { ratio: 0.3 });
