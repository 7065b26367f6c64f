import type { Environment } from '../environments/environment.js';
import type { PlanDashboardsResult } from '../reconcile/plan-dashboards.js';
import type { CommandIo, FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { CliError, ExitCode } from './exit-codes.js';
import { combinedExitCode, runEnvironments, type EnvironmentRun, type EnvironmentsMode } from './run-environments.js';
import type { TargetSession } from './target.js';

type Planned = Extract<PlanDashboardsResult, { kind: 'planned' }>;

/**
 * `apply --env …`: each chosen environment in declaration order, with its own target, retries, concurrency and exit
 * status; one that is invalid or down does not stop the others. Ends with one line per environment; the exit
 * status is the environments' own when they agree, else 5 (some failed, the others were applied).
 */
export async function applyEnvironments(
  mode: EnvironmentsMode,
  selection: DashboardsSelection,
  flags: FlagValues,
  io: CommandIo,
  applyOne: (target: TargetSession, planned: Planned) => Promise<ExitCode>,
): Promise<ExitCode> {
  const runs = await runEnvironments(mode, selection, flags, io, async (target, planned, env) => {
    io.stdout.write(`\n== ${env.name} · ${target.label} ==\n`);
    try {
      return await applyOne(target, planned);
    } catch (error) {
      // A refusal in one environment (the prune guard) is that environment's result.
      if (!(error instanceof CliError) || error.exitCode === ExitCode.TargetUnavailable) throw error;
      io.stderr.write(`dashcd apply: ${env.name}: ${error.message}\n`);
      return error.exitCode;
    }
  });
  const codes = runs.map(codeOf);
  io.stdout.write(`\n${runs.map((r, i) => summaryLine(r, codes[i] as ExitCode)).join('\n')}\n`);
  return combinedExitCode(codes);
}

function codeOf(run: EnvironmentRun<ExitCode>): ExitCode {
  if (run.status === 'done') return run.value;
  return run.status === 'invalid' ? ExitCode.InvalidDesiredState : ExitCode.TargetUnavailable;
}

const OUTCOME: Record<number, string> = {
  [ExitCode.Success]: 'applied',
  [ExitCode.InvalidDesiredState]: 'invalid, nothing written',
  [ExitCode.TargetUnavailable]: 'target unavailable',
  [ExitCode.ApplyFailed]: 'some dashboards failed',
};

/** `✓ dev: applied` / `✗ prod: credential missing or refused, nothing written (exit 4): PROD_TOKEN is not set …` */
function summaryLine(run: EnvironmentRun<ExitCode>, code: ExitCode): string {
  const env: Environment = run.env;
  const mark = code === ExitCode.Success ? '✓' : '✗';
  const stopped = run.status === 'unreachable' || run.status === 'not-planned' ? run : undefined;
  const outcome = stopped ? stoppedOutcome(stopped) : (OUTCOME[code] ?? 'failed');
  const why = stopped ? `: ${stopped.error.split('\n')[0] ?? ''}` : '';
  return `${mark} ${env.name}: ${outcome}${code === ExitCode.Success ? '' : ` (exit ${code})`}${why}`;
}

/**
 * Why an environment stopped, said as it is (a refused token is no unavailable target), and whether anything was
 * written: a failure while planning wrote nothing; one while applying may have come after some writes.
 */
function stoppedOutcome(run: Extract<EnvironmentRun<ExitCode>, { status: 'unreachable' | 'not-planned' }>): string {
  const why = run.status === 'unreachable' ? 'target unavailable' : 'credential missing or refused';
  return `${why}, ${run.during === 'plan' ? 'nothing written' : 'stopped while applying (plan again to see what is left)'}`;
}
