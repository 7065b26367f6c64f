import { requireComponent, runBaselineTask, runDashcdOk } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { boundedGoal, boundsText, type Bounds } from '../lib/goal.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { classicDashboards, platformDashboards, type ReconcileSet } from './reconcile-sets.js';

async function measureValidate(ctx: FigureContext, set: ReconcileSet, bounds: Bounds): Promise<FigureOutcome> {
  await requireComponent(['validate'], ['desired/load-desired.js', ...set.modules]);
  const count = ctx.sizes.dashboards;
  const dir = await set.files(ctx, count);
  let reported = '';
  const samples = await repeatTasks(ctx, {
    dashcd: async () => {
      const run = await runDashcdOk(['validate', '--dir', dir], { cwd: ctx.workDir, execArgv: ctx.execArgv });
      reported = run.stderr.trim();
      return { seconds: run.wallMs / 1000 };
    },
    yaml: async () => {
      const { wallMs, counts } = await runBaselineTask('yaml-parse-each', { dir }, { cwd: ctx.workDir });
      if (counts['files'] !== count) throw new Error(`baseline parsed ${counts['files']} files, expected ${count}`);
      return { seconds: wallMs / 1000 };
    },
  });
  if (!reported.includes(String(count))) throw new Error(`validate did not report ${count} valid ${set.noun}: ${reported}`);
  const seconds = metric(samples.dashcd, 'seconds');
  const yaml = metric(samples.yaml, 'seconds');
  return {
    rows: [
      {
        label: `dashcd validate over ${count.toLocaleString('en-US')} ${set.noun}, wall time`,
        unit: 's',
        better: 'lower',
        value: seconds,
        baseline: { label: 'yaml parseDocument on each file, one by one (own process)', value: yaml },
        goal: boundedGoal('lower', 's', bounds, seconds, yaml),
      },
    ],
    details: { files: count, output: reported, measuredAs: 'spawn to exit of `node dist-bench/bundle/main.js validate --dir …` (the CLI as `npm run build` bundles it), node start-up included' },
  };
}

function validateFigureOf(name: string, set: ReconcileSet, bounds: Bounds): Figure {
  return {
    name,
    title: `validate over 1,000 ${set.noun}, wall time`,
    goal: boundsText('lower', 's', bounds, 'the yaml parse'),
    run: (ctx) => measureValidate(ctx, set, bounds),
  };
}

export const validateFigure = validateFigureOf('validate', classicDashboards, { limit: 1, ratio: 0.15 });
export const documentsValidateFigure = validateFigureOf('documents-validate', platformDashboards, { ratio: 0.15 });
