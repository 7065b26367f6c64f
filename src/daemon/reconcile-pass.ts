import { applyPlan, countOutcomes, orphansOf, type ApplyOutcome } from '../apply/apply-plan.js';
import { pruneRefusal } from '../apply/prune-guard.js';
import { formatDiagnostic } from '../desired/load-desired.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, PlanChange } from '../plan/build-plan.js';
import { pointerToPath } from '../plan/json-pointer.js';
import { planDashboards, type PlanContext } from '../reconcile/plan-dashboards.js';
import type { DaemonStatus, FileResult } from './daemon-status.js';
import type { ReconcilePass } from './reconcile-queue.js';

export interface ReconcilePassDeps {
  planContext: PlanContext;
  status: DaemonStatus;
  log: Logger;
  selfHeal: boolean;
  prune: boolean;
  maxDelete: number;
}

/**
 * One daemon pass: plan (only the changed files, or everything), apply what differs, record per-file results.
 * Invalid files are skipped and listed in the status (their live version stays). A pass whose writes failed throws,
 * so the queue puts the work back and retries with backoff.
 */
export function createReconcilePass(deps: ReconcilePassDeps): (pass: ReconcilePass) => Promise<void> {
  const { status, log } = deps;
  return async (pass) => {
    const started = Date.now();
    const resyncOnly = pass.reasons.every((r) => r === 'resync');
    try {
      const planned = await planDashboards(deps.planContext, { ...(pass.full ? {} : { only: pass.files }), tolerateInvalid: true });
      if (planned.kind === 'invalid') {
        status.setInvalidFiles(planned.diagnostics, formatDiagnostic);
        for (const d of planned.diagnostics) log.error({ file: d.file, line: d.line, col: d.col, path: d.path }, d.message);
        finish(started, pass, true);
        return;
      }
      recordInvalid(planned.diagnostics, pass);
      status.git = planned.plan.git;
      const plan = resyncOnly ? handleDrift(planned.plan) : planned.plan;
      const prune = deps.prune && pass.full && planned.diagnostics.length === 0 && pruneAllowed(plan, planned.desired.dashboards.length);
      const result = await applyPlan(plan, {
        api: deps.planContext.api,
        log,
        concurrency: deps.planContext.concurrency,
        prune,
        validation: 'skip-invalid',
        ...(deps.planContext.signal ? { signal: deps.planContext.signal } : {}),
      });
      if (result.kind === 'rejected') throw new Error('unreachable: skip-invalid never rejects');
      recordOutcomes(plan, result.outcomes, resyncOnly);
      for (const v of result.skippedInvalid) {
        status.files.set(v.file, { id: v.id, result: 'rejected', at: new Date().toISOString(), error: v.message });
      }
      const counts = countOutcomes(result.outcomes);
      log.info({ full: pass.full, files: pass.files.length, reasons: pass.reasons, ...counts, unchanged: result.unchanged, invalid: planned.diagnostics.length, durationMs: Date.now() - started }, 'reconcile finished');
      if (counts.failed > 0) throw new Error(`${counts.failed} dashboard write(s) failed`);
      finish(started, pass, true);
    } catch (error) {
      finish(started, pass, false, error instanceof Error ? error.message : String(error));
      throw error;
    }
  };

  function recordInvalid(diagnostics: Parameters<DaemonStatus['setInvalidFiles']>[0], pass: ReconcilePass): void {
    // A partial pass only knows about its own files: keep what earlier passes found elsewhere.
    const keep = pass.full ? [] : status.invalid.filter((i) => !pass.files.includes(i.file));
    status.setInvalidFiles(diagnostics, formatDiagnostic);
    status.invalid = [...keep, ...status.invalid].sort((a, b) => a.file.localeCompare(b.file));
    status.setInvalid(status.invalid.length);
    for (const d of diagnostics) log.error({ file: d.file, line: d.line, col: d.col, path: d.path }, `invalid dashboard file: ${d.message}`);
  }

  /** At resync, every difference is drift: log it with its patch; revert it unless self-heal is off. */
  function handleDrift(plan: Plan): Plan {
    const drifted = plan.changes.filter((c) => c.action === 'create' || c.action === 'update');
    for (const change of drifted) {
      status.driftCount++;
      status.countDrift();
      const patch = change.action === 'update' ? change.patch.map((op) => `${op.op} ${pointerToPath(op.path)}`) : ['missing on target'];
      log.warn({ id: change.id, file: change.file, patch, selfHeal: deps.selfHeal }, deps.selfHeal ? 'drift found; reverting' : 'drift found');
    }
    if (deps.selfHeal) return plan;
    const kept = plan.changes.filter((c) => c.action !== 'create' && c.action !== 'update');
    return { ...plan, changes: kept };
  }

  function pruneAllowed(plan: Plan, desiredCount: number): boolean {
    const refusal = pruneRefusal({ desiredCount, orphanCount: orphansOf(plan).length, maxDelete: deps.maxDelete });
    if (refusal) log.warn({}, refusal);
    return refusal === undefined;
  }

  function recordOutcomes(plan: Plan, outcomes: readonly ApplyOutcome[], drift: boolean): void {
    const at = new Date().toISOString();
    const byId = new Map(outcomes.map((o) => [o.id, o]));
    for (const change of plan.changes) {
      if (change.action === 'orphan') continue;
      const outcome = byId.get(change.id);
      status.files.set(change.file, { id: change.id, result: fileResult(change, outcome, drift), at, ...(outcome?.status === 'failed' ? { error: outcome.error } : {}) });
      if (outcome?.status === 'applied') status.countWrite({ action: change.action });
      if (outcome?.status === 'failed') status.countFailure();
    }
  }

  function fileResult(change: Exclude<PlanChange, { action: 'orphan' }>, outcome: ApplyOutcome | undefined, drift: boolean): FileResult {
    if (outcome?.status === 'failed') return 'failed';
    if (change.action === 'unchanged') return 'unchanged';
    if (drift) return deps.selfHeal ? 'drift-reverted' : 'drift-reported';
    return change.action === 'create' ? 'created' : 'updated';
  }

  function finish(started: number, pass: ReconcilePass, ok: boolean, error?: string): void {
    const durationMs = Date.now() - started;
    status.lastReconcile = { at: new Date().toISOString(), full: pass.full, durationMs, ok, ...(error ? { error } : {}) };
    status.countReconcile({ result: ok ? 'ok' : 'failed' });
    status.observeReconcile(durationMs / 1000);
  }
}
