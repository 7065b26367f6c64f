import { operatorGrants } from './target-grants.js';
import { loadProjectConfigFor, type LoadProjectConfigResult } from '../config/project-config.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { declaredEnvironments, type Environment } from '../environments/environment.js';
import { describeEnvironments, selectEnvironments } from '../environments/select-environments.js';
import { booleanFlag, listFlag, stringFlag, type CommandIo, type FlagSpec, type FlagValues } from './command.js';
import { CliError, ExitCode, UsageError } from './exit-codes.js';

export const envFlag: FlagSpec = {
  type: 'string',
  multiple: true,
  description: 'Environment or group declared in dashcd.yaml (repeatable)',
  valueName: 'id',
};
export const allEnvsFlag: FlagSpec = { type: 'boolean', description: 'Every environment declared in dashcd.yaml' };

export type EnvironmentMode =
  | { kind: 'single'; project: LoadProjectConfigResult }
  | { kind: 'invalid'; diagnostics: Diagnostic[] }
  | { kind: 'environments'; project: LoadProjectConfigResult; declared: Environment[]; selected: Environment[]; chosen: boolean };

/**
 * Reads dashcd.yaml next to the dashboards root and resolves `--env`/`--all-envs`. Without `environments:` a
 * command runs on its one target as it always did; with them, targets come from dashcd.yaml, so `--target` is refused.
 */
export async function environmentMode(root: string, flags: FlagValues, io: CommandIo, { envWithoutEnvironments = false } = {}): Promise<EnvironmentMode> {
  // Read whenever a command reads the project: a malformed grant list went unnoticed until some environment had a
  // target, and then failed a job that had passed with it.
  operatorGrants(io.env);
  const project = await loadProjectConfigFor(root, io.cwd);
  if (project.diagnostics.length > 0) return { kind: 'invalid', diagnostics: project.diagnostics };
  const declared = declaredEnvironments(project.config);
  // A command whose --env also names its one target's environment (events pull's archive folder) takes it there.
  if (declared.length === 0 && envWithoutEnvironments) return { kind: 'single', project };
  const names = listFlag(flags, 'env');
  const selection = selectEnvironments(declared, { names, allEnvs: booleanFlag(flags, 'all-envs') });
  if (selection.kind === 'error') throw new UsageError(selection.message);
  if (selection.kind === 'single') return { kind: 'single', project };
  if (stringFlag(flags, 'target') !== undefined) throw new UsageError('--target and environments exclude each other: dashcd.yaml names each environment’s target; choose with --env');
  // The variable is refused no louder than this: it is often set for the whole shell or CI job, other projects too.
  if (io.env.DT_ENV_URL) io.log.warn('DT_ENV_URL is set but not used: dashcd.yaml names each environment’s target (an environment without one is the embedded store)');
  return { kind: 'environments', project, declared, selected: selection.environments, chosen: selection.chosen };
}

/**
 * Commands that act on one environment (pull, events pull, trash) need exactly one, chosen with `--env`: none
 * chosen lists the declared ones, several (a group, or repeats) name what was chosen. Exit 64.
 */
export function oneEnvironment(mode: Extract<EnvironmentMode, { kind: 'environments' }>, command: string): Environment {
  if (!mode.chosen) {
    throw new CliError(`${command} acts on one environment: choose it with --env NAME. Declared in dashcd.yaml:\n${describeEnvironments(mode.declared).join('\n')}`, ExitCode.Usage);
  }
  const [env, ...more] = mode.selected;
  if (!env || more.length > 0) throw new UsageError(`${command} acts on one environment; --env chose ${mode.selected.map((e) => e.name).join(', ')}`);
  return env;
}

/** Commands that write (apply, pull) need a choice: a CI step must not write to prod by accident. Exit 64. */
export function requireChoice(mode: Extract<EnvironmentMode, { kind: 'environments' }>, command: string): void {
  if (mode.chosen) return;
  const list = describeEnvironments(mode.declared).join('\n');
  throw new CliError(`${command} writes: choose environments with --env NAME (an environment or group, repeatable) or --all-envs. Declared in dashcd.yaml:\n${list}`, ExitCode.Usage);
}
