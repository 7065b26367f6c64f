import { listFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import { dashboardsRootFor } from './dashboards-root.js';
import { printDiagnostics } from './diagnostics-output.js';
import { environmentMode, oneEnvironment } from './environment-choice.js';
import { environmentTargets } from './environment-targets.js';
import { ExitCode, UsageError } from './exit-codes.js';
import type { TargetSession } from './target.js';
import { asTargetUnavailable, withTarget } from './with-target.js';

export interface OneTargetOptions {
  /** What the target's token must allow, named when it is missing (default: what apply needs). */
  readonly scopes?: readonly string[];
  /**
   * Without environments in dashcd.yaml, `--env NAME` names the one target's environment (`target.env`, events
   * pull's archive folder) instead of being refused: a hosted tenant `abc123` archived as `prod`.
   */
  readonly envNamesTarget?: boolean;
}

/**
 * Runs `work` against the one target a command acts on: `--target`/DT_ENV_URL or the embedded store, or with
 * environments in dashcd.yaml the one `--env NAME` chooses (a usage error for none or several). The target is
 * closed however `work` ends; a target that cannot be used is exit 4.
 */
export async function withOneTarget(
  flags: FlagValues,
  io: CommandIo,
  command: string,
  work: (target: TargetSession) => Promise<ExitCode>,
  { scopes, envNamesTarget = false }: OneTargetOptions = {},
): Promise<ExitCode> {
  const given = stringFlag(flags, 'dir');
  const root = await dashboardsRootFor(given, io.cwd);
  const mode = await environmentMode(root, flags, io, { envWithoutEnvironments: envNamesTarget });
  if (mode.kind === 'invalid') {
    printDiagnostics(mode.diagnostics, io);
    return ExitCode.InvalidDesiredState;
  }
  if (mode.kind === 'single') {
    const [name, ...more] = listFlag(flags, 'env');
    if (more.length > 0) throw new UsageError(`${command} names one environment; --env gave ${[name, ...more].join(', ')}`);
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes }, io, (target) => work(name === undefined ? target : { ...target, env: name }));
  }
  const env = oneEnvironment(mode, command);
  const targets = environmentTargets({ data: stringFlag(flags, 'data'), scopes }, io);
  try {
    return await work(await targets.open(env));
  } catch (error) {
    throw asTargetUnavailable(error);
  } finally {
    await targets.close();
  }
}
