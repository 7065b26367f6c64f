import { applyPlan, countOutcomes, orphansOf, type ApplyOutcome, type ApplyResult, type RemoteViolation } from '../../apply/apply-plan.js';
import { pruneRefusal } from '../../apply/prune-guard.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo } from '../command.js';
import { concurrencyFlag, dataFlag, dirFlag, pathsPositional, targetFlag } from '../common-flags.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { intFlag } from '../int-flag.js';
import { withTarget } from '../with-target.js';
import { concurrencyOf, planFromFlags, selectionFromArgs } from '../plan-from-flags.js';
import { renderPlanText } from '../render/render-text.js';

export const applyCommand = defineCommand({
  path: ['apply'],
  summary: 'Make the target match the dashboards folder (only real changes are written)',
  description:
    'Validates everything first (locally, then with the target’s validator); if anything is invalid nothing is written\n(exit 3). Writes create/update items with bounded concurrency and retries; a dashboard that still fails is reported\nand the others are applied (exit 5). --prune deletes orphans that carry the ownership tag, within --max-delete.',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    concurrency: concurrencyFlag,
    prune: { type: 'boolean', description: 'Delete live dashboards with the ownership tag that have no file' },
    // No `default` here: absent means "maxDelete from dashcd.yaml, else 5", which a flag default would hide.
    'max-delete': { type: 'string', description: 'Most dashboards --prune may delete in one run (default: maxDelete in dashcd.yaml, else 5)', valueName: 'n' },
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd apply', 'dashcd apply --concurrency 16', 'dashcd apply --prune --max-delete 20', 'dashcd apply dashboards/team/api.yaml'],
  async run({ flags, positionals }, io) {
    const started = Date.now();
    const concurrency = concurrencyOf(flags);
    const prune = booleanFlag(flags, 'prune');
    const selection = await selectionFromArgs(flags, positionals, io);
    if (prune && selection.only) throw new UsageError('--prune needs the whole dashboards folder: a selective run (paths or a subfolder --dir) never prunes');
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data') }, io, async (target) => {
      const planned = await planFromFlags(selection, flags, io, target);
      if (planned.kind === 'invalid') {
        printDiagnostics(planned.diagnostics, io);
        return ExitCode.InvalidDesiredState;
      }
      const { plan } = planned;
      if (prune) {
        const maxDelete = intFlag(flags, 'max-delete', planned.config.maxDelete ?? DEFAULT_MAX_DELETE);
        const refusal = pruneRefusal({ desiredCount: planned.desired.dashboards.length, orphanCount: orphansOf(plan).length, maxDelete });
        if (refusal) throw new CliError(refusal, ExitCode.InvalidDesiredState);
      }
      io.stdout.write(renderPlanText(plan));
      const result = await applyPlan(plan, { api: target.client, log: io.log, concurrency, signal: io.signal, prune });
      if (result.kind === 'rejected') return reportRejected(result.invalid, io);
      return reportApplied(result, { target: target.label, started }, io);
    });
  },
});

const DEFAULT_MAX_DELETE = 5;

/** The target's validator refused some dashboards, so nothing was written: exit 3, like a local schema problem. */
function reportRejected(invalid: readonly RemoteViolation[], io: CommandIo): ExitCode {
  for (const dashboard of invalid) {
    const violations = dashboard.violations.length > 0 ? dashboard.violations : [{ path: '', message: dashboard.message }];
    for (const v of violations) {
      io.stdout.write(`${dashboard.file}  ${v.path ? `${v.path}: ` : ''}${v.message ?? ''} (target validator)\n`);
    }
  }
  io.stderr.write(`✗ the target rejected ${invalid.length} dashboard(s); nothing was written\n`);
  return ExitCode.InvalidDesiredState;
}

function reportApplied(
  result: Extract<ApplyResult, { kind: 'applied' }>,
  context: { target: string; started: number },
  io: CommandIo,
): ExitCode {
  printOutcomes(result.outcomes, io);
  const counts = countOutcomes(result.outcomes);
  const seconds = ((Date.now() - context.started) / 1000).toFixed(2);
  io.stdout.write(
    `Applied to ${context.target}: ${counts.created} created, ${counts.updated} updated, ${result.unchanged} unchanged, ${counts.deleted} deleted, ${counts.failed} failed in ${seconds}s\n`,
  );
  return counts.failed > 0 ? ExitCode.ApplyFailed : ExitCode.Success;
}

function printOutcomes(outcomes: readonly ApplyOutcome[], io: CommandIo): void {
  for (const o of outcomes) {
    const where = o.action === 'delete' ? o.name : o.file;
    const verb = o.status === 'failed' ? `✗ ${o.action} failed` : o.action === 'create' ? '+ created' : o.action === 'update' ? '~ updated' : '- deleted';
    io.stdout.write(`${verb}  ${o.id}  ${where}${o.status === 'failed' ? `: ${o.error}` : ''}\n`);
  }
}
