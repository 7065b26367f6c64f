import type { DesiredDashboard } from '../desired/load-desired.js';
import { loadTemplates } from '../environments/load-templates.js';
import { templateUses } from '../environments/template.js';
import { loadEnvironments } from '../reconcile/load-environments.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import { printDiagnostics } from './diagnostics-output.js';
import { oneEnvironment, type EnvironmentMode } from './environment-choice.js';
import { environmentTargets } from './environment-targets.js';
import { ExitCode } from './exit-codes.js';
import type { TargetSession } from './target.js';
import { asTargetUnavailable } from './with-target.js';

/** What pull needs to know of one environment: its dashboards as its files give them, and what each file's templates use. */
export interface PulledEnvironment {
  name: string;
  dashboards: readonly DesiredDashboard[];
  uses: ReadonlyMap<string, readonly string[]>;
}

/**
 * `pull --env NAME`: from exactly one environment's target, matching live dashboards to files by the ids that
 * environment resolves. Its files must be valid there (exit 3 otherwise): a file left out would look like no file
 * and its dashboard would be written a second time.
 */
export async function pullEnvironment(
  mode: Extract<EnvironmentMode, { kind: 'environments' }>,
  root: string,
  flags: FlagValues,
  io: CommandIo,
  pull: (target: TargetSession, environment: PulledEnvironment) => Promise<ExitCode>,
): Promise<ExitCode> {
  const env = oneEnvironment(mode, 'pull');
  const [load, templates] = await Promise.all([
    loadEnvironments({ root, cwd: io.cwd, project: mode.project, declared: mode.declared, selected: [env] }),
    loadTemplates({ dir: root, cwd: io.cwd }),
  ]);
  const desired = load.environments[0]?.desired;
  if (!desired || desired.diagnostics.length > 0) {
    printDiagnostics(desired?.diagnostics ?? [], io);
    return ExitCode.InvalidDesiredState;
  }
  const uses = new Map(templates.files.map((f) => [f.file, templateUses(f.value)] as const).filter(([, used]) => used.length > 0));
  // Pulling only reads; --adopt writes the ownership tag.
  const targets = environmentTargets({ data: stringFlag(flags, 'data'), scopes: booleanFlag(flags, 'adopt') ? ['ReadConfig', 'WriteConfig'] : ['ReadConfig'] }, io);
  try {
    return await pull(await targets.open(env), { name: env.name, dashboards: desired.dashboards, uses });
  } catch (error) {
    throw asTargetUnavailable(error);
  } finally {
    await targets.close();
  }
}
