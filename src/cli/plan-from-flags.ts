import { planDashboards, type PlanDashboardsResult, type PlanOptions } from '../reconcile/plan-dashboards.js';
import { booleanFlag, type CommandIo, type FlagValues } from './command.js';
import type { CheckCacheFile } from '../desired/check-cache-file.js';
import { openCacheFor, withCheckCache } from './check-cache-run.js';
import { UsageError } from './exit-codes.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { intFlag } from './int-flag.js';
import type { TargetSession } from './target.js';

/**
 * The plan step `plan` and `apply` share: the selection, `--concurrency`, `--prune` and `--max-delete` against an
 * open target. `--prune` with a selective run is a usage error: a file it did not read is not a deleted file.
 * `opened`: the check cache, if the command started reading it already.
 */
export function planFromFlags(
  selection: DashboardsSelection,
  flags: FlagValues,
  io: CommandIo,
  target: TargetSession,
  opened: Promise<CheckCacheFile | undefined> = openCacheFor(selection.root, flags, io),
): Promise<PlanDashboardsResult> {
  return withCheckCache(selection.root, selection.only !== undefined, flags, io, (cache) => planDashboards(
    {
      dir: selection.root,
      cwd: io.cwd,
      api: target.client,
      targetLabel: target.label,
      log: io.log,
      concurrency: concurrencyOf(flags),
      signal: io.signal,
      strict: booleanFlag(flags, 'strict'),
      ...(cache ? { cache } : {}),
    },
    planOptionsOf(selection, flags),
  ), opened);
}

/** `--prune`/`--no-prune`, `--max-delete` and the selection as plan options (also one environment's plan). */
export function planOptionsOf(selection: DashboardsSelection, flags: FlagValues): PlanOptions {
  const prune = typeof flags.prune === 'boolean' ? flags.prune : undefined;
  if (prune === true && selection.only) throw new UsageError('--prune needs the whole dashboards folder: a selective run (paths or a subfolder --dir) never prunes');
  const maxDelete = flags['max-delete'] === undefined ? undefined : intFlag(flags, 'max-delete', 0);
  return { ...(selection.only ? { only: selection.only } : {}), prune, maxDelete };
}

/** `--concurrency`: requests in flight at once, at least one. */
export function concurrencyOf(flags: FlagValues): number {
  return intFlag(flags, 'concurrency', 8, { min: 1 });
}
