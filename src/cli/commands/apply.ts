import { applyPlan, countOutcomes, type ApplyOutcome, type ApplyResult, type RemoteViolation } from '../../apply/apply-plan.js';
import { missingFolder } from '../../desired/discover-files.js';
import { kindOf } from '../../kinds/kinds.js';
import { compareRules } from '../../reconcile/compare-rules.js';
import { replanWrite } from '../../reconcile/plan-against-live.js';
import type { PlanDashboardsResult } from '../../reconcile/plan-dashboards.js';
import { applyEnvironments } from '../apply-environments.js';
import { defineCommand, stringFlag, type CommandIo } from '../command.js';
import { allEnvsFlag, envFlag, environmentMode, requireChoice } from '../environment-choice.js';
import type { TargetSession } from '../target.js';
import { cacheFlag, concurrencyFlag, dataFlag, dirFlag, pathsPositional, pruneFlags, strictFlag, targetFlag } from '../common-flags.js';
import { printDiagnostics, printWarnings } from '../diagnostics-output.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { withTarget } from '../with-target.js';
import { writePhase, type WritePhase } from '../write-phase.js';
import { concurrencyOf, planFromFlags } from '../plan-from-flags.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { renderPlanText } from '../render/render-text.js';
import { printable } from '../../lib/printable.js';
import { colorFor } from '../render/colors.js';

export const applyCommand = defineCommand({
  path: ['apply'],
  summary: 'Make the target match the dashboards folder (only real changes are written)',
  description:
    'Validates everything first (locally, then with the target’s validator); if anything is invalid nothing is written\n(exit 3). Writes create/adopt/update items with bounded concurrency and retries; a dashboard that still fails is\nreported and the others are applied (exit 5). Adopting writes the ownership tag into a dashboard made elsewhere.\nWith pruning (--prune or prune: true in dashcd.yaml) owned dashboards without a file are deleted, within\n--max-delete; a refused prune writes nothing (exit 3). Paths or a subfolder --dir apply only those files.\n\nCtrl-C stops at once while it reads and validates (nothing written); once writing, the writes in flight finish,\nno more start, and it says how many were not (exit 130); a second Ctrl-C ends it at once.',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    concurrency: concurrencyFlag,
    ...pruneFlags,
    strict: strictFlag,
    cache: cacheFlag,
    env: { ...envFlag, description: `${envFlag.description}; required when dashcd.yaml declares environments` },
    'all-envs': allEnvsFlag,
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd apply --env dev', 'dashcd apply', 'dashcd apply --concurrency 16', 'dashcd apply --prune --max-delete 20', 'dashcd apply dashboards/platform/hosts.yaml'],
  async run({ flags, positionals }, processIo) {
    const started = Date.now();
    // Ctrl-C stops the reads at once, but lets the writes in flight finish (write-phase.ts): `stop` ends the writing.
    const phase = writePhase(processIo.signal);
    const io: ApplyIo = { ...processIo, signal: phase.readSignal, stop: processIo.signal, phase };
    const concurrency = concurrencyOf(flags);
    const selection = await selectionFromArgs(flags, positionals, io);
    const mode = await environmentMode(selection.root, flags, io);
    if (mode.kind === 'invalid') {
      printDiagnostics(mode.diagnostics, io);
      return ExitCode.InvalidDesiredState;
    }
    if (mode.kind === 'environments') {
      requireChoice(mode, 'apply');
      return applyEnvironments(mode, selection, flags, io, (target, planned) => applyPlanned(target, planned, { concurrency, started: Date.now() }, io));
    }
    // No folder, nothing to apply: said before a target (the embedded store's data dir) is opened or created for it.
    const missing = await missingFolder(selection.root, io.cwd);
    if (missing) {
      printDiagnostics([missing], io);
      return ExitCode.InvalidDesiredState;
    }
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data') }, io, async (target) => {
      const planned = await planFromFlags(selection, flags, io, target);
      if (planned.kind === 'invalid') {
        printDiagnostics(planned.diagnostics, io, planned.desired?.warnings);
        return ExitCode.InvalidDesiredState;
      }
      printWarnings(planned.desired.warnings, io, 'stderr');
      return applyPlanned(target, planned, { concurrency, started }, io);
    });
  },
});

/** A command's io, plus the process's own stop (the io's signal only stops reads) and the moment writes begin. */
type ApplyIo = CommandIo & { readonly stop: AbortSignal; readonly phase: WritePhase };

/** Apply's write half for one target: the plan printed, the prune guard's refusal, writes, the summary line. */
async function applyPlanned(
  target: TargetSession,
  planned: Extract<PlanDashboardsResult, { kind: 'planned' }>,
  { concurrency, started }: { concurrency: number; started: number },
  io: ApplyIo,
): Promise<ExitCode> {
  const { plan } = planned;
  io.stdout.write(renderPlanText(plan, { color: colorFor(io.stdout, io.env) }));
  if (plan.prune.refused !== undefined) throw new CliError(`${plan.prune.refused}; nothing was written`, ExitCode.InvalidDesiredState);
  const rules = compareRules(planned.config);
  const replan = (change: Parameters<typeof replanWrite>[0]) => replanWrite(change, { api: target.client, rules });
  io.phase.beginWrites();
  const result = await applyPlan(plan, { api: target.client, kinds: kindOf, replan, log: io.log, concurrency, signal: io.stop }).finally(() => io.phase.endWrites());
  if (result.kind === 'rejected') return reportRejected(result.invalid, io);
  return reportApplied(result, { target: target.label, started }, io);
}

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
  io: ApplyIo,
): ExitCode {
  printOutcomes(result.outcomes, io);
  const raced = result.outcomes.filter((o) => o.status === 'failed' && o.action !== 'delete' && o.replanned !== undefined).length;
  if (raced > 0) io.stderr.write(`${raced} document${raced === 1 ? ' was' : 's were'} changed on the target while apply ran and not overwritten: review them with dashcd plan, then apply again\n`);
  const counts = countOutcomes(result.outcomes);
  const seconds = ((Date.now() - context.started) / 1000).toFixed(2);
  // Interrupted, the count of what was never started belongs in the summary: "Applied…, 1 unchanged" read as done.
  const heading = result.notStarted > 0 ? `Interrupted applying to ${context.target}` : `Applied to ${context.target}`;
  io.stdout.write(
    `${heading}: ${counts.created} created, ${counts.adopted > 0 ? `${counts.adopted} adopted, ` : ''}${counts.updated} updated, ${result.unchanged} unchanged, ${counts.deleted} deleted, ${counts.failed} failed${result.notStarted > 0 ? `, ${result.notStarted} not started` : ''} in ${seconds}s\n`,
  );
  if (result.notStarted > 0) {
    io.stderr.write(`interrupted: ${result.notStarted} change${result.notStarted === 1 ? ' was' : 's were'} not started (the writes in flight finished); apply again to finish\n`);
    return ExitCode.Interrupted;
  }
  return counts.failed > 0 ? ExitCode.ApplyFailed : ExitCode.Success;
}

const DONE: Record<ApplyOutcome['action'], string> = { create: '+ created', adopt: '! adopted', update: '~ updated', delete: '- deleted' };

function printOutcomes(outcomes: readonly ApplyOutcome[], io: CommandIo): void {
  for (const o of outcomes) {
    const where = o.action === 'delete' ? o.name : o.file;
    const verb = o.status === 'failed' ? `✗ ${o.action} failed` : 'alreadyGone' in o ? '= already deleted' : o.action === 'delete' && o.kind === 'document' ? '- moved to the trash' : DONE[o.action];
    // Names and errors carry text from files and from the target (a trashed document's name): never raw to a terminal.
    io.stdout.write(`${verb}  ${printable(`${o.id}  ${where}${o.status === 'failed' ? `: ${o.error}` : ''}`)}\n`);
  }
}
