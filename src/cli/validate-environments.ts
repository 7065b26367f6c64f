import { collapseByEnvironment } from '../environments/locate-diagnostics.js';
import { loadEnvironments } from '../reconcile/load-environments.js';
import { booleanFlag, type CommandIo, type FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { printDiagnostics, printWarnings } from './diagnostics-output.js';
import type { EnvironmentsMode } from './run-environments.js';
import { ExitCode, UsageError } from './exit-codes.js';

/**
 * `validate` with environments: every chosen environment (all when none is chosen) resolved with its values, then
 * checked; a problem several environments share is one line naming them. Exit 3 when any is invalid.
 */
export async function validateEnvironments(mode: EnvironmentsMode, selection: DashboardsSelection, flags: FlagValues, io: CommandIo): Promise<ExitCode> {
  if (booleanFlag(flags, 'remote')) throw new UsageError('--remote with environments: run plan --env NAME, which reads each environment through its target');
  const load = await loadEnvironments({ root: selection.root, cwd: io.cwd, ...(selection.only ? { only: selection.only } : {}), project: mode.project, declared: mode.declared, selected: mode.selected });
  const diagnostics = collapseByEnvironment(load.environments.flatMap((e) => e.desired.diagnostics));
  if (diagnostics.length > 0) printDiagnostics(diagnostics, io);
  printWarnings(load.warnings, io, 'stdout');
  if (diagnostics.length > 0) return ExitCode.InvalidDesiredState;
  const counts = load.environments.map((e) => `${e.environment.name} ${e.desired.dashboards.length}`).join(', ');
  const files = load.environments[0]?.desired.files ?? 0;
  io.stderr.write(`✓ valid in ${load.environments.length} environment${load.environments.length === 1 ? '' : 's'} (dashboards: ${counts}) from ${files} file${files === 1 ? '' : 's'}\n`);
  return ExitCode.Success;
}
