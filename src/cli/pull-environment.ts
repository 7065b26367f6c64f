import { loadProjectConfigFor } from '../config/project-config.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import { declaredEnvironments, type Environment } from '../environments/environment.js';
import { loadTemplates } from '../environments/load-templates.js';
import { templateUses } from '../environments/template.js';
import { shownPath } from '../lib/shown-path.js';
import { loadEnvironments } from '../reconcile/load-environments.js';
import { booleanFlag, listFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import { defaultDashboardsRoot } from './dashboards-root.js';
import { printDiagnostics } from './diagnostics-output.js';
import { oneEnvironment, type EnvironmentMode } from './environment-choice.js';
import { environmentTargets } from './environment-targets.js';
import { ExitCode, UsageError } from './exit-codes.js';
import type { TargetSession } from './target.js';
import { asTargetUnavailable } from './with-target.js';
import { pathExists } from '../lib/path-exists.js';

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
  // A folder that is not there yet holds no files to match or check: pull makes it, as it does without environments.
  const files = (await pathExists(root)) ? await environmentFiles(mode, root, env, io.cwd) : { dashboards: [], uses: new Map() };
  if ('diagnostics' in files) {
    printDiagnostics(files.diagnostics, io);
    return ExitCode.InvalidDesiredState;
  }
  // Pulling only reads; --adopt writes the ownership tag.
  const targets = environmentTargets({ data: stringFlag(flags, 'data'), scopes: booleanFlag(flags, 'adopt') ? ['ReadConfig', 'WriteConfig'] : ['ReadConfig'] }, io);
  try {
    return await pull(await targets.open(env), { name: env.name, ...files });
  } catch (error) {
    throw asTargetUnavailable(error);
  } finally {
    await targets.close();
  }
}

/** The environment's dashboards as the files in `root` give them, and what each file's templates use; or why not. */
async function environmentFiles(
  mode: Extract<EnvironmentMode, { kind: 'environments' }>,
  root: string,
  env: Environment,
  cwd: string,
): Promise<Omit<PulledEnvironment, 'name'> | { diagnostics: readonly Diagnostic[] }> {
  const [load, templates] = await Promise.all([
    loadEnvironments({ root, cwd, project: mode.project, declared: mode.declared, selected: [env] }),
    loadTemplates({ dir: root, cwd }),
  ]);
  const desired = load.environments[0]?.desired;
  if (!desired || desired.diagnostics.length > 0) return { diagnostics: desired?.diagnostics ?? [] };
  const uses = new Map(templates.files.map((f) => [f.file, templateUses(f.value)] as const).filter(([, used]) => used.length > 0));
  return { dashboards: desired.dashboards, uses };
}

/**
 * `pull --env NAME --dir DIR` where DIR lies outside the project of the working folder, whose dashcd.yaml declares
 * the environments: pull reads the dashcd.yaml beside the dashboards root that holds DIR, so `--env` would be refused
 * as if no environments were declared anywhere. Says where DIR is and what to do instead (exit 64).
 */
export async function refuseDirOutsideProject(given: string, root: string, flags: FlagValues, io: CommandIo): Promise<void> {
  if (listFlag(flags, 'env').length === 0) return;
  const own = await loadProjectConfigFor(root, io.cwd);
  if (declaredEnvironments(own.config).length > 0) return;
  const projectRoot = await defaultDashboardsRoot(io.cwd);
  const project = await loadProjectConfigFor(projectRoot, io.cwd);
  if (project.file === undefined || declaredEnvironments(project.config).length === 0) return;
  const found = own.file === undefined ? `there is none at or above ${given}` : `that is ${shownPath(io.cwd, own.file)}, which declares none`;
  throw new UsageError(
    `--dir ${given} is outside the project of ${shownPath(io.cwd, project.file)}, whose environments --env names: pull reads the dashcd.yaml ` +
      `beside the dashboards folder that holds --dir, and ${found}. Pull into a folder inside the project ` +
      `(such as ${shownPath(io.cwd, projectRoot)}/imported), then move the files where you want them`,
  );
}

