import { planDashboards, type PlanDashboardsResult } from '../reconcile/plan-dashboards.js';
import { stringFlag, type CommandIo, type FlagValues } from './command.js';
import { intFlag } from './int-flag.js';
import type { TargetSession } from './target.js';

/** The plan step `plan` and `apply` share: `--dir` and `--concurrency` against an open target. */
export function planFromFlags(flags: FlagValues, io: CommandIo, target: TargetSession): Promise<PlanDashboardsResult> {
  return planDashboards({
    dir: stringFlag(flags, 'dir') ?? 'dashboards',
    cwd: io.cwd,
    api: target.client,
    targetLabel: target.label,
    log: io.log,
    concurrency: concurrencyOf(flags),
    signal: io.signal,
  });
}

export function concurrencyOf(flags: FlagValues): number {
  return Math.max(1, intFlag(flags, 'concurrency', 8));
}
