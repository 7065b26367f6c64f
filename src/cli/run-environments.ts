import type { Diagnostic } from '../desired/diagnostic.js';
import type { Environment } from '../environments/environment.js';
import { collapseByEnvironment } from '../environments/locate-diagnostics.js';
import { loadEnvironmentStates } from '../reconcile/desired-state.js';
import { planLoaded, type PlanDashboardsResult } from '../reconcile/plan-dashboards.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { printDiagnostics, printWarnings } from './diagnostics-output.js';
import { environmentTargets, MissingTokenError } from './environment-targets.js';
import type { EnvironmentMode } from './environment-choice.js';
import { CliError, ExitCode } from './exit-codes.js';
import { concurrencyOf, planOptionsOf } from './plan-from-flags.js';
import type { TargetSession } from './target.js';
import { isTargetFailure } from './with-target.js';
import { errorMessage } from '../lib/error-message.js';
import { ApiError, TransportError } from '../client/errors.js';

export type EnvironmentsMode = Extract<EnvironmentMode, { kind: 'environments' }>;

/** What happened in one environment: planned (valid, target reached), or why not. */
export type EnvironmentRun<T> =
  | { env: Environment; status: 'done'; target: TargetSession; planned: Extract<PlanDashboardsResult, { kind: 'planned' }>; value: T }
  | { env: Environment; status: 'invalid'; target: string; diagnostics: Diagnostic[] }
  | { env: Environment; status: 'unreachable'; target: string; error: string; during: Stage }
  /** A credential not given (its variable unset: nothing was sent) or refused (401, 403): the target is there. */
  | { env: Environment; status: 'not-planned'; target: string; error: string; during: Stage };

/** Where a failure stopped an environment: while planning (nothing written), or in the work on its plan (apply). */
export type Stage = 'plan' | 'work';

export interface RunEnvironmentsOptions {
  /** Where the problems' text goes: `stderr` when stdout is machine output (`plan --output json`). */
  diagnosticsTo?: 'stdout' | 'stderr';
  /** The scopes the command needs, named when a token variable is unset (default: what apply needs). */
  scopes?: readonly string[];
}

/**
 * Plans each chosen environment in turn against its own target and hands the plan to `work`; an environment whose
 * values are invalid or whose target cannot be reached is recorded and the others go on. Diagnostics are printed
 * once (a problem shared by environments is one line naming them all), warnings after them.
 */
export async function runEnvironments<T>(
  mode: EnvironmentsMode,
  selection: DashboardsSelection,
  flags: FlagValues,
  io: CommandIo,
  work: (target: TargetSession, planned: Extract<PlanDashboardsResult, { kind: 'planned' }>, env: Environment) => Promise<T>,
  { diagnosticsTo = 'stdout', scopes }: RunEnvironmentsOptions = {},
): Promise<EnvironmentRun<T>[]> {
  // --strict (or `strict: true`) holds each environment's rendered dashboards to it: unknown keys are errors there.
  const source = { dir: selection.root, cwd: io.cwd, strict: booleanFlag(flags, 'strict'), only: selection.only };
  const { states, warnings } = await loadEnvironmentStates(source, mode);
  const invalid = states.flatMap((e) => e.state.desired.diagnostics);
  if (invalid.length > 0) printDiagnostics(collapseByEnvironment(invalid), io, [], diagnosticsTo);
  printWarnings([...collapseByEnvironment(states.flatMap((e) => e.state.desired.warnings)), ...warnings], io, 'stderr');
  const targets = environmentTargets({ data: stringFlag(flags, 'data'), scopes }, io);
  try {
    const runs: EnvironmentRun<T>[] = [];
    for (const { environment: env, state } of states) {
      // Stopped (Ctrl-C) after an environment: the next is not started.
      io.signal.throwIfAborted();
      const where = env.target.kind === 'remote' ? env.target.url : `embedded /e/${env.name}`;
      if (state.desired.diagnostics.length > 0) {
        runs.push({ env, status: 'invalid', target: where, diagnostics: state.desired.diagnostics });
        continue;
      }
      const stage: { now: Stage } = { now: 'plan' };
      runs.push(await runOne(env, where, stage, async () => {
        const target = await targets.open(env);
        const ctx = { api: target.client, targetLabel: target.label, log: io.log, concurrency: concurrencyOf(flags), signal: io.signal, cwd: io.cwd };
        const planned = await planLoaded(ctx, state, planOptionsOf(selection, flags));
        if (planned.kind === 'planned') {
          stage.now = 'work';
          return { env, status: 'done', target, planned, value: await work(target, planned, env) };
        }
        // A file only the target can judge (a document id another user keeps private, a new one in UUID form).
        const diagnostics = planned.diagnostics.map((d) => ({ ...d, env: env.name }));
        printDiagnostics(diagnostics, io, [], diagnosticsTo);
        return { env, status: 'invalid', target: where, diagnostics };
      }));
    }
    return runs;
  } finally {
    await targets.close();
  }
}

/** A target failure or an unset token variable (exit 4) in one environment is its result, not the command's end. */
async function runOne<T>(env: Environment, where: string, stage: { readonly now: Stage }, run: () => Promise<EnvironmentRun<T>>): Promise<EnvironmentRun<T>> {
  try {
    return await run();
  } catch (error) {
    const failed = { env, target: where, error: errorMessage(error), during: stage.now };
    // Not a target that failed but a credential not given or refused, said as such ("not planned"): "unreachable"
    // sent a newcomer with a mistyped token looking at the network.
    if (error instanceof MissingTokenError || (error instanceof TransportError && error.reason === 'NO_PLATFORM') || credentialRefused(error)) return { ...failed, status: 'not-planned' };
    const targetDown = isTargetFailure(error) || (error instanceof CliError && error.exitCode === ExitCode.TargetUnavailable);
    if (!targetDown) throw error;
    return { ...failed, status: 'unreachable' };
  }
}

/**
 * The exit status over environments: one environment keeps its own code; over several, all alike give that code,
 * any mix of failures gives 5 (some environments failed, the others went through); one interrupted, 130.
 */
export function combinedExitCode(codes: readonly ExitCode[]): ExitCode {
  if (codes.includes(ExitCode.Interrupted)) return ExitCode.Interrupted;
  const failures = codes.filter((c) => c !== ExitCode.Success && c !== ExitCode.ChangesPending);
  if (failures.length === 0) return codes.includes(ExitCode.ChangesPending) ? ExitCode.ChangesPending : ExitCode.Success;
  if (failures.length === codes.length && failures.every((c) => c === failures[0])) return failures[0] as ExitCode;
  return ExitCode.ApplyFailed;
}

function credentialRefused(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 401 || error.status === 403);
}
