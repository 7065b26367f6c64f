import { isStrict } from '../config/project-config.js';
import type { DesiredResult } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { strictly } from '../desired/strict.js';
import type { Environment } from '../environments/environment.js';
import { collapseByEnvironment } from '../environments/locate-diagnostics.js';
import { loadEnvironments } from '../reconcile/load-environments.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { count, printDiagnostics, printWarnings } from './diagnostics-output.js';
import { environmentTargets } from './environment-targets.js';
import type { EnvironmentsMode } from './run-environments.js';
import { ExitCode } from './exit-codes.js';
import { itemCounts, warningsNote } from './valid-summary.js';
import { validateRemote } from './validate-remote.js';
import { asTargetUnavailable } from './with-target.js';
import { problemTotal } from '../desired/capped-problems.js';

/**
 * `validate` with environments: every chosen environment (all when none is chosen) resolved with its values, then
 * checked, unknown keys of the rendered dashboards included (errors with --strict or `strict: true`); with
 * --remote, each environment's dashboards also through its own target's validator. A problem several environments
 * share is one line naming them. Exit 3 when any is invalid.
 */
export async function validateEnvironments(mode: EnvironmentsMode, selection: DashboardsSelection, flags: FlagValues, io: CommandIo): Promise<ExitCode> {
  const load = await loadEnvironments({ root: selection.root, cwd: io.cwd, ...(selection.only ? { only: selection.only } : {}), project: mode.project, declared: mode.declared, selected: mode.selected });
  const strict = isStrict(booleanFlag(flags, 'strict'), mode.project.config);
  const environments = load.environments.map((e) => ({ environment: e.environment, desired: strict ? strictly(e.desired) : e.desired }));
  let diagnostics = collapseByEnvironment(environments.flatMap((e) => e.desired.diagnostics));
  if (diagnostics.length === 0 && booleanFlag(flags, 'remote')) diagnostics = await validateRemotely(environments, flags, io);
  // Every warning printed is counted: the rendered dashboards' and dashcd.yaml's own (an unused value).
  const warnings = [...collapseByEnvironment(environments.flatMap((e) => e.desired.warnings)), ...load.warnings];
  if (diagnostics.length > 0) {
    printDiagnostics(diagnostics, io, warnings);
    return ExitCode.InvalidDesiredState;
  }
  printWarnings(warnings, io, 'stdout');
  // Each environment's kinds as validate without environments counts them (a notebook is not a dashboard), the
  // environments that have the same named together.
  const byCounts = new Map<string, string[]>();
  for (const e of environments) byCounts.set(itemCounts(e.desired.dashboards), [...(byCounts.get(itemCounts(e.desired.dashboards)) ?? []), e.environment.name]);
  const counts = [...byCounts].map(([items, names]) => `${names.join(', ')}: ${items}`).join('; ');
  // Named paths are what was checked; the rest of the folder was read only for what they refer to.
  const files = selection.only ? new Set(environments.flatMap((e) => e.desired.dashboards.map((d) => d.file))).size : (environments[0]?.desired.files ?? 0);
  io.stderr.write(`✓ valid in ${count(environments.length, 'environment')} (${counts}) from ${count(files, 'file')}${warningsNote(problemTotal(warnings))}\n`);
  return ExitCode.Success;
}

/** Each environment through its own target, one after the other; a target that cannot be reached is exit 4. */
async function validateRemotely(environments: readonly { environment: Environment; desired: DesiredResult }[], flags: FlagValues, io: CommandIo): Promise<Diagnostic[]> {
  const targets = environmentTargets({ data: stringFlag(flags, 'data') }, io);
  try {
    const found: Diagnostic[] = [];
    for (const { environment, desired } of environments) {
      const target = await targets.open(environment);
      found.push(...(await validateRemote(desired.dashboards, target.client, io, environment.name)));
    }
    return collapseByEnvironment(found);
  } catch (error) {
    throw asTargetUnavailable(error);
  } finally {
    await targets.close();
  }
}
