import { requireComponent, runBaselineTask, runDashcdOk } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import { dashboardSet } from './dashboard-set.js';

const MAX_SECONDS = 1.0;

async function measureValidate(ctx: FigureContext): Promise<FigureOutcome> {
  await requireComponent(['validate'], ['desired/load-desired.js']);
  const count = ctx.sizes.dashboards;
  const dir = await dashboardSet(ctx, count);
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
  if (!reported.includes(String(count))) throw new Error(`validate did not report ${count} valid dashboards: ${reported}`);
  const seconds = metric(samples.dashcd, 'seconds');
  return {
    rows: [
      {
        label: `dashcd validate over ${count.toLocaleString('en-US')} YAML dashboards, wall time`,
        unit: 's',
        better: 'lower',
        value: seconds,
        baseline: { label: "yaml parseDocument on each file, one by one (own process)", value: metric(samples.yaml, 'seconds') },
        goal: { text: `≤ ${MAX_SECONDS.toFixed(1)} s`, met: seconds.median <= MAX_SECONDS, limit: MAX_SECONDS },
      },
    ],
    details: { dashboards: count, output: reported, measuredAs: 'spawn to exit of `node dist-bench/src/main.js validate --dir …`, node start-up included' },
  };
}

export const validateFigure: Figure = {
  name: 'validate',
  title: 'validate over 1,000 YAML dashboards, wall time',
  goal: '≤ 1.0 s',
  run: measureValidate,
};
