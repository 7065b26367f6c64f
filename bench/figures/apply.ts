import { requireComponent, runBaselineTask } from '../lib/cli.js';
import type { Figure, FigureContext, FigureOutcome } from '../lib/figure.js';
import { metric, repeatTasks } from '../lib/repeat.js';
import type { ServerUnderTest } from '../lib/servers.js';
import { dashboardSet } from './dashboard-set.js';
import { applyAll, freshServer } from './reconcile-runs.js';

const MAX_SECONDS = 3;

/** Each run writes into a server on an empty data dir; start-up and shutdown are outside the measurement. */
async function onFreshServer(ctx: FigureContext, body: (server: ServerUnderTest) => Promise<number>): Promise<{ seconds: number }> {
  const server = await freshServer(ctx);
  try {
    return { seconds: (await body(server)) / 1000 };
  } finally {
    await server.stop();
  }
}

async function measureApply(ctx: FigureContext): Promise<FigureOutcome> {
  await requireComponent(['apply'], ['desired/load-desired.js', 'apply/apply-plan.js', 'client/api-client.js']);
  const count = ctx.sizes.dashboards;
  const dir = await dashboardSet(ctx, count);
  const samples = await repeatTasks(ctx, {
    dashcd: () => onFreshServer(ctx, async (server) => (await applyAll(ctx, server, dir, count)).wallMs),
    sequential: () => onFreshServer(ctx, async (server) => (await runBaselineTask('sequential-put', { dir, endpoint: server.endpoint }, { cwd: ctx.workDir })).wallMs),
  });
  const seconds = metric(samples.dashcd, 'seconds');
  return {
    rows: [
      {
        label: `dashcd apply of ${count.toLocaleString('en-US')} new dashboards, wall time`,
        unit: 's',
        better: 'lower',
        value: seconds,
        baseline: { label: 'parse each file, PUT one at a time (own process)', value: metric(samples.sequential, 'seconds') },
        goal: { text: `≤ ${MAX_SECONDS} s`, met: seconds.median <= MAX_SECONDS, limit: MAX_SECONDS },
      },
    ],
    details: { dashboards: count, measuredAs: 'spawn to exit of `dashcd apply` (validation, target validator, writes) against an empty dashcd server process' },
  };
}

export const applyFigure: Figure = { name: 'apply', title: 'apply of 1,000 new dashboards', goal: '≤ 3 s', run: measureApply };
