import { planDashboards, type PlanDashboardsResult } from '../reconcile/plan-dashboards.js';
import { stringFlag, type CommandIo, type FlagValues } from './command.js';
import { selectDashboards, type DashboardsSelection } from './dashboards-selection.js';
import { intFlag } from './int-flag.js';
import type { TargetSession } from './target.js';

/** The dashboards `plan`, `apply`, `validate` and `pin` read: `--dir` or the paths given, else the project's root. */
export function selectionFromArgs(flags: FlagValues, positionals: readonly string[], io: CommandIo): Promise<DashboardsSelection> {
  return selectDashboards({ cwd: io.cwd, dir: stringFlag(flags, 'dir'), paths: positionals });
}

/** The plan step `plan` and `apply` share: the selection and `--concurrency` against an open target. */
export function planFromFlags(selection: DashboardsSelection, flags: FlagValues, io: CommandIo, target: TargetSession): Promise<PlanDashboardsResult> {
  return planDashboards(
    {
      dir: selection.root,
      cwd: io.cwd,
      api: target.client,
      targetLabel: target.label,
      log: io.log,
      concurrency: concurrencyOf(flags),
      signal: io.signal,
    },
    selection.only ? { only: selection.only } : {},
  );
}

export function concurrencyOf(flags: FlagValues): number {
  return Math.max(1, intFlag(flags, 'concurrency', 8));
}
