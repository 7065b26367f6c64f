import { hasChanges } from '../plan/build-plan.js';
import { booleanFlag, type CommandIo, type FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { ExitCode } from './exit-codes.js';
import { renderEnvironmentsJson, renderEnvironmentsMarkdown, renderEnvironmentsText, type EnvironmentSection } from './render/render-environments.js';
import { runEnvironments, type EnvironmentRun, type EnvironmentsMode } from './run-environments.js';

const RENDERERS: Record<string, (sections: readonly EnvironmentSection[]) => string> = {
  text: renderEnvironmentsText,
  json: renderEnvironmentsJson,
  markdown: renderEnvironmentsMarkdown,
};

/**
 * `plan` over the chosen environments (all of them when none is chosen: planning writes nothing). Exit 4 when some
 * environment's target could not be reached, else 3 when some environment is invalid, else with
 * `--detailed-exitcode` 2 when any environment has changes pending.
 */
export async function planEnvironments(mode: EnvironmentsMode, selection: DashboardsSelection, { flags, output }: { flags: FlagValues; output: string }, io: CommandIo): Promise<ExitCode> {
  // A plan only reads: a missing token is asked for with ReadConfig alone.
  const runs = await runEnvironments(mode, selection, flags, io, async () => undefined, { diagnosticsTo: output === 'json' ? 'stderr' : 'stdout', scopes: ['ReadConfig'] });
  const sections = runs.map(toSection);
  io.stdout.write((RENDERERS[output] ?? renderEnvironmentsText)(sections));
  if (runs.some((r) => r.status === 'unreachable' || r.status === 'no-token')) return ExitCode.TargetUnavailable;
  if (runs.some((r) => r.status === 'invalid')) return ExitCode.InvalidDesiredState;
  const pending = runs.some((r) => r.status === 'done' && hasChanges(r.planned.plan));
  return booleanFlag(flags, 'detailed-exitcode') && pending ? ExitCode.ChangesPending : ExitCode.Success;
}

function toSection(run: EnvironmentRun<unknown>): EnvironmentSection {
  const { name } = run.env;
  if (run.status === 'done') return { name, target: run.target.label, status: 'planned', plan: run.planned.plan };
  if (run.status === 'invalid') return { name, target: run.target, status: 'invalid', diagnostics: run.diagnostics };
  return { name, target: run.target, status: run.status, error: run.error };
}
