import { applyPlan, countOutcomes, type ApplyOutcome } from '../apply/apply-plan.js';
import { previewLayout } from '../console/console-data.js';
import { type DesiredDashboard } from '../desired/load-desired.js';
import { formatDiagnostic, type Diagnostic } from '../desired/diagnostic.js';
import type { ProjectConfig } from '../config/project-config.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, PlanChange } from '../plan/build-plan.js';
import { planDashboards, type PlanContext, type PlanDashboardsResult, type PlanOptions } from '../reconcile/plan-dashboards.js';
import type { DaemonStatus, FileResult } from './daemon-status.js';
import { fullPassChunks, PASS_CHUNK_FILES } from './pass-chunks.js';
import { releaseMemoryAfter } from './release-memory.js';
import { addTotals, driftPatch, emptyTotals, ownCopy, type PassTotals } from './pass-values.js';
import type { PassSource, PassTree } from './pass-source.js';
import type { ReconcilePass } from './reconcile-queue.js';

export interface ReconcilePassDeps {
  planContext: PlanContext;
  status: DaemonStatus;
  log: Logger;
  selfHeal: boolean;
  /** undefined: as dashcd.yaml says. */
  prune: boolean | undefined;
  maxDelete: number | undefined;
  /** Following a repository: each pass reads the checkout this names instead of `planContext`'s folder. */
  source?: PassSource;
  /** Resolves once the target's files hold every write it acknowledged (LoopTarget.filesWritten). */
  filesWritten: () => Promise<void>;
  /** How a pass plans: the folder as it is (default), or one environment of it (values applied). */
  plan?: (ctx: PlanContext, options: PlanOptions) => Promise<PlanDashboardsResult>;
}

type FileChange = Exclude<PlanChange, { action: 'orphan' | 'delete' }>;

type Orphan = Extract<PlanChange, { action: 'orphan' | 'delete' }>;

/** A dashboard a full pass found: all it keeps of each once the chunk that read it is done. */
interface FileId {
  id: string;
  file: string;
}

type PassDone = { kind: 'invalid'; diagnostics: Diagnostic[] } | { kind: 'applied'; totals: PassTotals; files: number; chunks?: number };

/**
 * One daemon pass: plan (only the changed files, or everything), apply what differs, record per-file results.
 * Invalid files are skipped and listed in the status (their live version stays). A pass whose writes failed throws,
 * so the queue puts the work back and retries with backoff.
 *
 * Drift is a difference between the live dashboard and a file that has not changed since the daemon last saw the
 * two equal (same content hash): someone edited the live side. A difference after the file changed (or before the
 * daemon ever synced it) is a git change and is always applied; drift is reverted only with self-heal.
 */
export function createReconcilePass(deps: ReconcilePassDeps): (pass: ReconcilePass) => Promise<void> {
  const { status } = deps;
  let log = deps.log;
  const { signal } = deps.planContext;
  /** Dashboard id → content hash of the file when live was last known equal to it. */
  const synced = new Map<string, string>();
  /** Orphans already logged as left behind: each gets one line, not one per resync. */
  const leftBehind = new Set<string>();
  let lastRefusal: string | undefined;

  return async (pass) => {
    const started = Date.now();
    const tree = deps.source?.next();
    // Nothing fetched yet: not a failed pass, there is nothing to reconcile; the first fetch requests one.
    if (deps.source && !tree) return;
    // Every line of a pass over a commit names it, the apply's per-dashboard lines included.
    log = tree ? deps.log.child({ revision: tree.revision }) : deps.log;
    const planContext = tree ? { ...deps.planContext, dir: tree.dir, cwd: tree.cwd, git: tree.git, log } : deps.planContext;
    try {
      const chunks = pass.full && !tree && !deps.plan ? await fullPassChunks(planContext.dir, planContext.cwd) : undefined;
      const done = (chunks && (await chunkedFullPass(planContext, chunks, pass))) ?? (await wholePass(planContext, pass, tree));
      if (done.kind === 'invalid') {
        if (tree) deps.source?.settled(tree, { kind: 'invalid', errors: done.diagnostics.map(formatDiagnostic) });
        finish(started, pass, false, invalidReason(done.diagnostics, tree));
        return;
      }
      const { totals } = done;
      log.info({ full: pass.full, files: done.files, reasons: pass.reasons, ...totals, ...(done.chunks ? { chunks: done.chunks } : {}), durationMs: Date.now() - started }, 'reconcile finished');
      if (done.files > PASS_CHUNK_FILES) void releaseMemoryAfter(deps.filesWritten()).then(() => log.info({ heapUsedMb: Math.round(process.memoryUsage().heapUsed / 2 ** 20) }, 'memory released after a large pass'));
      if (totals.failed > 0) throw new Error(`${totals.failed} dashboard write(s) failed`);
      if (tree) deps.source?.settled(tree, { kind: 'applied' });
      finish(started, pass, true);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (tree) deps.source?.settled(tree, { kind: 'failed', error: message });
      finish(started, pass, false, message);
      throw error;
    }
  };

  /** Plans and applies the pass in one go: the changed files, or the whole folder (or checkout, or environment). */
  async function wholePass(planContext: PlanContext, pass: ReconcilePass, tree: PassTree | undefined): Promise<PassDone> {
    const planned = await (deps.plan ?? planDashboards)(planContext, { ...(pass.full ? {} : { only: pass.files }), tolerateInvalid: tree?.tolerateInvalid ?? true, prune: deps.prune, maxDelete: deps.maxDelete });
    recordInvalid(planned.diagnostics, pass);
    if (planned.kind === 'invalid') return { kind: 'invalid', diagnostics: planned.diagnostics };
    const totals = await applyPlanned(planned, pass.full);
    if (pass.full) {
      forgetMissing(planned.desired.dashboards, planned.diagnostics);
      // With invalid files the plan lists no orphans (an invalid file's dashboard would look like one): keep the last list.
      if (planned.diagnostics.length === 0) recordOrphans(planned.plan.changes.filter((c): c is Orphan => (c.action === 'orphan' || c.action === 'delete') && !totals.deletedIds.has(c.id)));
    }
    return { kind: 'applied', totals: totals.counts, files: pass.full ? planned.desired.files : pass.files.length };
  }

  /**
   * A full pass over a large folder, one chunk of files at a time (pass-chunks.ts), each planned and applied like a
   * partial pass. What only the whole folder can tell comes after the last chunk: with no invalid file, the owned
   * live dashboards no file claims are the orphans. Undefined (the caller then runs the whole pass, which plans
   * duplicates, orphans and prune as it always does) when an id repeats across chunks, an orphan is to be pruned, or
   * the project itself is invalid: rare, and what the chunks wrote stays right.
   */
  async function chunkedFullPass(planContext: PlanContext, chunks: readonly string[][], pass: ReconcilePass): Promise<PassDone | undefined> {
    const seen: { dashboards: FileId[]; ids: Set<string>; diagnostics: Diagnostic[]; files: number } = { dashboards: [], ids: new Set(), diagnostics: [], files: 0 };
    let totals = emptyTotals();
    let config: ProjectConfig | undefined;
    // Parsed on this thread: a worker per chunk would pay its start-up (module loading) once per 500 files, and at
    // 10,000 dashboards that made the pass slower (all live after 52.6 s with a worker per chunk, 39.4 s without).
    const chunkContext = { ...planContext, workers: 0 };
    for (const only of chunks) {
      const planned = await planDashboards(chunkContext, { only, tolerateInvalid: true, prune: deps.prune, maxDelete: deps.maxDelete });
      if (planned.kind === 'invalid' || planned.desired.dashboards.some((d) => seen.ids.has(d.id))) return undefined;
      for (const d of planned.desired.dashboards) {
        const id = ownCopy(d.id);
        seen.dashboards.push({ id, file: d.file });
        seen.ids.add(id);
      }
      seen.diagnostics.push(...planned.diagnostics);
      seen.files += planned.desired.files;
      totals = addTotals(totals, (await applyPlanned(planned, false)).counts);
      config = planned.config;
    }
    recordInvalid(seen.diagnostics, pass);
    const orphans = seen.diagnostics.length === 0 && config ? await unclaimedOwned(config.ownershipTag, seen.ids) : [];
    // Deleting is the whole pass's job, within its prune guards; kept orphans are only listed.
    if (orphans.length > 0 && (deps.prune ?? config?.prune) === true) return undefined;
    forgetMissing(seen.dashboards, seen.diagnostics);
    lastRefusal = undefined;
    if (seen.diagnostics.length === 0) recordOrphans(orphans);
    return { kind: 'applied', totals, files: seen.files, chunks: chunks.length };
  }

  /** Live dashboards with the ownership tag that no file claims (as the plan finds orphans: ids compared case-blind). */
  async function unclaimedOwned(ownershipTag: string, ids: ReadonlySet<string>): Promise<Orphan[]> {
    const claimed = new Set([...ids].map((id) => id.toLowerCase()));
    const owned = await deps.planContext.api.dashboards.list({ tags: [ownershipTag] });
    const orphans = new Map<string, Orphan>();
    for (const { id, name } of owned) if (!claimed.has(id.toLowerCase())) orphans.set(id.toLowerCase(), { action: 'orphan', id, name: name ?? '' });
    return [...orphans.values()];
  }

  /** Drift, the writes, and the per-file results of one plan (a pass's, or a chunk's). */
  async function applyPlanned(planned: Extract<PlanDashboardsResult, { kind: 'planned' }>, full: boolean): Promise<{ counts: PassTotals; deletedIds: Set<string> }> {
    // A read cut short by shutdown looks like missing dashboards: never act on such a plan.
    signal?.throwIfAborted();
    status.git = planned.plan.git;
    const hashes = new Map(planned.desired.dashboards.map((d) => [d.id as string, d.contentHash]));
    const drifted = findDrift(planned.plan, hashes);
    const plan = deps.selfHeal ? planned.plan : withoutChanges(planned.plan, drifted);
    if (full) noteRefusal(plan);
    // A refused prune still writes: deletesOf() leaves the plan's deletions out (apply-plan.ts).
    const result = await applyPlan(plan, { api: deps.planContext.api, log, concurrency: deps.planContext.concurrency, validation: 'skip-invalid', ...(signal ? { signal } : {}) });
    if (result.kind === 'rejected') throw new Error('unreachable: skip-invalid never rejects');
    signal?.throwIfAborted();
    const rejected = new Map(result.skippedInvalid.map((v) => [v.id, v.message]));
    const desired = new Map(planned.desired.dashboards.map((d) => [d.id as string, d]));
    recordFiles(planned.plan, result.outcomes, { drifted, rejected, hashes, desired });
    const deletedIds = new Set(result.outcomes.filter((o) => o.action === 'delete' && o.status === 'deleted').map((o) => o.id));
    const counts = { ...countOutcomes(result.outcomes), unchanged: result.unchanged, drift: drifted.size, rejected: rejected.size, invalid: planned.diagnostics.length };
    return { counts, deletedIds };
  }

  /** Lists invalid files in the status; logs a file's problems when they are new, not again at every resync. */
  function recordInvalid(diagnostics: readonly Diagnostic[], pass: ReconcilePass): void {
    const before = new Map(status.invalid.map((i) => [i.file, i.errors.join('\n')]));
    status.recordInvalid(diagnostics, { full: pass.full, files: pass.files }, formatDiagnostic);
    const changed = new Set(status.invalid.filter((i) => before.get(i.file) !== i.errors.join('\n')).map((i) => i.file));
    for (const d of diagnostics) {
      if (changed.has(d.file)) log.error({ file: d.file, line: d.line, col: d.col, path: d.path, where: formatDiagnostic(d) }, 'invalid dashboard file; its live version stays');
    }
  }

  /** Differences on files unchanged since live last matched them; each is logged with its patch and counted. */
  function findDrift(plan: Plan, hashes: ReadonlyMap<string, string>): Set<string> {
    const drifted = new Set<string>();
    for (const change of plan.changes) {
      if (change.action !== 'create' && change.action !== 'update') continue;
      const hash = hashes.get(change.id);
      if (hash === undefined || synced.get(change.id) !== hash) continue;
      drifted.add(change.id);
      status.driftCount++;
      status.instruments.countDrift();
      const what = change.action === 'update' ? { patch: driftPatch(change) } : { deletedOnTarget: true };
      log.warn({ id: change.id, file: change.file, ...what, selfHeal: deps.selfHeal }, deps.selfHeal ? 'drift found; reverting' : 'drift found; reporting only (--no-self-heal)');
    }
    return drifted;
  }

  /** A refused prune is counted every full pass it happens, but logged only when its reason is new. */
  function noteRefusal(plan: Plan): void {
    const { refused } = plan.prune;
    if (refused !== undefined) status.instruments.countPruneRefused();
    if (refused !== undefined && refused !== lastRefusal) log.warn({ reason: refused }, 'prune refused; nothing deleted');
    lastRefusal = refused;
  }

  /** A deleted file triggers a full pass (watch-dashboards.ts), so this runs within a debounce of the deletion. */
  function announceLeftBehind(id: string, name: string): void {
    if (leftBehind.has(id)) return;
    leftBehind.add(id);
    log.warn({ id, name }, 'dashboard has no file any more; it stays on the target (pruning is off)');
  }

  /** Per-file results from the whole plan (drift left alone included), and the metrics of what was written. */
  function recordFiles(
    plan: Plan,
    outcomes: readonly ApplyOutcome[],
    seen: { drifted: ReadonlySet<string>; rejected: ReadonlyMap<string, string>; hashes: ReadonlyMap<string, string>; desired: ReadonlyMap<string, DesiredDashboard> },
  ): void {
    const at = new Date().toISOString();
    const byId = new Map(outcomes.filter((o) => o.action !== 'delete').map((o) => [o.id, o]));
    for (const change of plan.changes) {
      if (change.action === 'orphan' || change.action === 'delete') continue;
      const outcome = byId.get(change.id);
      const rejection = seen.rejected.get(change.id);
      const result = rejection !== undefined ? 'rejected' : fileResult(change, outcome, seen.drifted.has(change.id));
      showFile(change, result, seen.desired.get(change.id));
      if (result === undefined) continue;
      const error = rejection ?? (outcome?.status === 'failed' ? outcome.error : undefined);
      const id = ownCopy(change.id);
      status.files.set(change.file, { id, result, at, ...(error !== undefined ? { error } : {}) });
      const hash = seen.hashes.get(id);
      if (hash !== undefined && (outcome?.status === 'applied' || change.action === 'unchanged')) synced.set(id, hash);
    }
    for (const outcome of outcomes) {
      if (outcome.status === 'failed') status.instruments.countFailure();
      else status.instruments.countWrite({ action: outcome.action });
    }
  }

  /**
   * What the console shows of the file: its layout (taken again only when the file changed) and, while the change is
   * still pending (drift reported, a write never attempted), the change itself for its before/after picture.
   */
  function showFile(change: FileChange, result: FileResult | undefined, dashboard: DesiredDashboard | undefined): void {
    if (!dashboard) return;
    const before = status.shown.get(change.file);
    const layout = before?.contentHash === dashboard.contentHash ? before.layout : previewLayout(dashboard.body);
    const pending = result === undefined || result === 'drift-reported' ? { pending: change } : {};
    status.shown.set(change.file, { id: ownCopy(change.id), name: change.name, contentHash: dashboard.contentHash, layout, ...pending });
  }

  /** `undefined`: the write was never attempted (nothing to record). */
  function fileResult(change: FileChange, outcome: ApplyOutcome | undefined, drift: boolean): FileResult | undefined {
    if (change.action === 'unchanged') return 'unchanged';
    if (drift && !deps.selfHeal) return 'drift-reported';
    if (outcome === undefined) return undefined;
    if (outcome.status === 'failed') return 'failed';
    if (drift) return 'drift-reverted';
    return change.action === 'create' ? 'created' : change.action === 'adopt' ? 'adopted' : 'updated';
  }

  /** A full pass knows every file: forget deleted ones and the sync state of dashboards no file holds any more. */
  function forgetMissing(dashboards: readonly FileId[], diagnostics: readonly Diagnostic[]): void {
    status.keepOnlyFiles(new Set([...dashboards.map((d) => d.file), ...diagnostics.map((d) => d.file)]));
    const ids = new Set<string>(dashboards.map((d) => d.id));
    for (const id of synced.keys()) if (!ids.has(id)) synced.delete(id);
  }

  /** What is orphaned now (a full pass without invalid files found them), each left-behind one logged once. */
  function recordOrphans(orphans: readonly Orphan[]): void {
    status.orphans = orphans.map(({ id, name }) => ({ id, name }));
    for (const o of orphans) if (o.action === 'orphan') announceLeftBehind(o.id, o.name);
    const still = new Set(orphans.map((o) => o.id));
    for (const id of leftBehind) if (!still.has(id)) leftBehind.delete(id);
  }

  function finish(started: number, pass: ReconcilePass, ok: boolean, error?: string): void {
    const durationMs = Date.now() - started;
    status.lastReconcile = { at: new Date().toISOString(), full: pass.full, durationMs, ok, ...(error ? { error } : {}) };
    status.instruments.countReconcile({ result: ok ? 'ok' : 'failed' });
    status.instruments.observeReconcile(durationMs / 1000);
    if (ok) status.instruments.setLastSuccess(Date.now() / 1000);
  }
}

/** Why a pass applied nothing: the commit, the environment's values, or dashcd.yaml. */
function invalidReason(diagnostics: readonly Diagnostic[], tree: PassTree | undefined): string {
  if (tree) return `commit ${tree.git.shortCommit} has invalid files; nothing was applied`;
  const env = diagnostics.find((d) => d.env !== undefined)?.env;
  if (env !== undefined) return `invalid values or files in environment ${env}; nothing was written to it`;
  return 'the project configuration is invalid; nothing was applied';
}

function withoutChanges(plan: Plan, ids: ReadonlySet<string>): Plan {
  if (ids.size === 0) return plan;
  return { ...plan, changes: plan.changes.filter((c) => !ids.has(c.id) || c.action === 'orphan') };
}
