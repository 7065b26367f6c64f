import { applyPlan, countOutcomes } from '../apply/apply-plan.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import { formatDiagnostic, formatWarning, type Diagnostic } from '../desired/diagnostic.js';
import type { ProjectConfig } from '../config/project-config.js';
import type { Logger } from '../lib/logger.js';
import { findOrphans } from '../plan/build-plan.js';
import { planDashboards, type MaxDelete, type PlanContext, type PlanDashboardsResult, type PlanOptions } from '../reconcile/plan-dashboards.js';
import { itemKind, type DaemonStatus } from './daemon-status.js';
import { decideWrites, forgetMissing, freshMemory, noteRefusal, recordSynced, settleFiles, settleOrphans, type FileSettled, type Orphan, type PassMemory } from './drift-rules.js';
import type { FolderCommit } from './folder-commit.js';
import { fullPassChunks, PASS_CHUNK_FILES } from './pass-chunks.js';
import { packLayout } from './packed-layout.js';
import { documentKindOf } from '../console/sync-rows.js';
import { releaseMemoryAfterLargePass } from './release-memory.js';
import { addTotals, driftPatch, emptyTotals, ownCopy, type PassTotals } from './pass-values.js';
import type { PassSource, PassTree } from './pass-source.js';
import type { ReconcilePass } from './reconcile-queue.js';
import { errorMessage } from '../lib/error-message.js';
import { kindOf, listOwned } from '../kinds/kinds.js';
import { pushAll } from '../lib/push-all.js';

export interface ReconcilePassDeps {
  planContext: PlanContext;
  status: DaemonStatus;
  log: Logger;
  selfHeal: boolean;
  /** undefined: as dashcd.yaml says. */
  prune: boolean | undefined;
  maxDelete: MaxDelete | undefined;
  /** Following a repository: each pass reads the checkout this names instead of `planContext`'s folder. */
  source?: PassSource;
  /** Reads the watched folder's commit for the status; undefined when following a repository (each tree names it). */
  commit?: FolderCommit | undefined;
  /** Resolves once the target's files hold every write it acknowledged (LoopTarget.filesWritten). */
  filesWritten: () => Promise<void>;
  /** Files per chunk of a large full pass; default PASS_CHUNK_FILES. */
  passChunkFiles?: number;
  /** How a pass plans: the folder as it is (default), or one environment of it (values applied). */
  plan?: (ctx: PlanContext, options: PlanOptions) => Promise<PlanDashboardsResult>;
}

/** Orphans a pass finds up to this many get a log line each; more get one line together (/status lists them all). */
const ORPHANS_LOGGED_ONE_BY_ONE = 5;

/** A dashboard a full pass found: all it keeps of each once the chunk that read it is done. */
interface FileId {
  id: string;
  file: string;
  kind?: 'document';
}

type PassDone = { kind: 'invalid'; diagnostics: Diagnostic[] } | { kind: 'applied'; totals: PassTotals; files: number; chunks?: number };

type Planned = Extract<PlanDashboardsResult, { kind: 'planned' }>;

/**
 * One daemon pass: plan (only the changed files, or everything), apply what differs, record per-file results.
 * Invalid files are skipped and listed in the status (their live version stays). A pass whose writes failed throws,
 * so the queue puts the work back and retries with backoff. What a pass writes, reports and remembers for the next
 * one (drift, synced files, orphans announced, prune refusals) is decided by drift-rules.ts.
 */
export function createReconcilePass(deps: ReconcilePassDeps): (pass: ReconcilePass) => Promise<void> {
  let memory = freshMemory();
  return async (pass) => {
    const started = Date.now();
    const tree = deps.source?.next();
    // Nothing fetched yet: not a failed pass, there is nothing to reconcile; the first fetch requests one.
    if (deps.source && !tree) return;
    // Every line of a pass over a commit names it, the apply's per-dashboard lines included.
    const run = new PassRun(deps, tree ? deps.log.child({ revision: tree.revision }) : deps.log, memory);
    try {
      await run.run(pass, tree, started);
    } finally {
      // What the pass learnt before it failed (writes that did succeed) holds for the next one too.
      memory = run.memory;
    }
  };
}

/** One pass: its log (naming the commit it reads, if any) and the loop's memory as the pass leaves it. */
class PassRun {
  constructor(
    private readonly deps: ReconcilePassDeps,
    private readonly log: Logger,
    public memory: PassMemory,
  ) {}

  async run(pass: ReconcilePass, tree: PassTree | undefined, started: number): Promise<void> {
    const { deps, log } = this;
    const planContext = tree ? { ...deps.planContext, dir: tree.dir, cwd: tree.cwd, git: tree.git, log } : deps.planContext;
    try {
      const chunks = pass.full && !tree && !deps.plan ? await fullPassChunks(planContext.dir, planContext.cwd, deps.passChunkFiles) : undefined;
      const done = (chunks && (await this.chunkedFullPass(planContext, chunks, pass))) ?? (await this.wholePass(planContext, pass, tree));
      if (done.kind === 'invalid') {
        if (tree) deps.source?.settled(tree, { kind: 'invalid', errors: done.diagnostics.map(formatDiagnostic) });
        this.finish(started, pass, false, invalidReason(done.diagnostics, tree));
        return;
      }
      // The commit reconciled: a refused one (above) never becomes it. A pass over the folder plans without git
      // (CommitSource 'unread'); folder-commit.ts reads it off the path from a save to its write.
      if (tree) deps.status.recordGit(tree.git);
      else if (pass.full) await deps.commit?.readNow();
      else deps.commit?.readWhenQuiet();
      const { totals } = done;
      log.info({ full: pass.full, files: done.files, reasons: pass.reasons, ...totals, ...(done.chunks ? { chunks: done.chunks } : {}), durationMs: Date.now() - started }, 'reconcile finished');
      if (done.files > (deps.passChunkFiles ?? PASS_CHUNK_FILES)) void releaseMemoryAfterLargePass(deps.filesWritten(), log);
      if (totals.failed > 0) throw new Error(`${totals.failed} dashboard write(s) failed`);
      if (tree) deps.source?.settled(tree, { kind: 'applied' });
      this.finish(started, pass, true);
    } catch (error) {
      const message = errorMessage(error);
      if (tree) deps.source?.settled(tree, { kind: 'failed', error: message });
      this.finish(started, pass, false, message);
      throw error;
    }
  }

  /** Plans and applies the pass in one go: the changed files, or the whole folder (or checkout, or environment). */
  private async wholePass(planContext: PlanContext, pass: ReconcilePass, tree: PassTree | undefined): Promise<PassDone> {
    const { deps } = this;
    const planned = await (deps.plan ?? planDashboards)(planContext, { ...(pass.full ? {} : { only: pass.files }), tolerateInvalid: tree?.tolerateInvalid ?? true, prune: deps.prune, maxDelete: deps.maxDelete });
    this.recordInvalid(planned.diagnostics, pass);
    // No files read (the project itself is invalid): what was warned of stays remembered.
    if (planned.desired) this.recordWarnings(planned.desired.warnings, planned.diagnostics, pass);
    if (planned.kind === 'invalid') return { kind: 'invalid', diagnostics: planned.diagnostics };
    const totals = await this.applyPlanned(planned, pass.full);
    if (pass.full) {
      this.forgetMissing(planned.desired.dashboards, planned.diagnostics);
      // With invalid files the plan lists no orphans (an invalid file's dashboard would look like one): keep the last list.
      if (planned.diagnostics.length === 0) this.recordOrphans(planned.plan.changes.filter((c): c is Orphan => (c.action === 'orphan' || c.action === 'delete') && !totals.deletedIds.has(c.id)));
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
  private async chunkedFullPass(planContext: PlanContext, chunks: readonly string[][], pass: ReconcilePass): Promise<PassDone | undefined> {
    const { deps } = this;
    const seen: { dashboards: FileId[]; ids: Set<string>; diagnostics: Diagnostic[]; warnings: Diagnostic[]; files: number } = { dashboards: [], ids: new Set(), diagnostics: [], warnings: [], files: 0 };
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
        seen.dashboards.push({ id, file: d.file, ...(d.kind ? { kind: d.kind } : {}) });
        seen.ids.add(id);
      }
      pushAll(seen.diagnostics, planned.diagnostics);
      pushAll(seen.warnings, planned.desired.warnings);
      seen.files += planned.desired.files;
      totals = addTotals(totals, (await this.applyPlanned(planned, false)).counts);
      config = planned.config;
    }
    this.recordInvalid(seen.diagnostics, pass);
    this.recordWarnings(seen.warnings, seen.diagnostics, pass);
    const owned = seen.diagnostics.length === 0 && config ? await listOwned(deps.planContext.api, config.ownershipTag) : [];
    const orphans = findOrphans(seen.dashboards, owned, 'orphan');
    // Deleting is the whole pass's job, within its prune guards; kept orphans are only listed.
    if (orphans.length > 0 && (deps.prune ?? config?.prune) === true) return undefined;
    this.forgetMissing(seen.dashboards, seen.diagnostics);
    // No chunk prunes, so none was refused.
    this.memory = noteRefusal(undefined, this.memory).memory;
    if (seen.diagnostics.length === 0) this.recordOrphans(orphans);
    return { kind: 'applied', totals, files: seen.files, chunks: chunks.length };
  }

  /** Drift, the writes, and the per-file results of one plan (a pass's, or a chunk's). */
  private async applyPlanned(planned: Planned, full: boolean): Promise<{ counts: PassTotals; deletedIds: Set<string> }> {
    const { deps, log } = this;
    const { status } = deps;
    const { signal } = deps.planContext;
    // A read cut short by shutdown looks like missing dashboards: never act on such a plan.
    signal?.throwIfAborted();
    const hashes = new Map(planned.desired.dashboards.map((d) => [d.id as string, d.contentHash]));
    const { plan, drift } = decideWrites(planned.plan, hashes, this.memory, deps.selfHeal);
    for (const change of drift) {
      status.driftFound(itemKind(change));
      const what = change.action === 'update' ? { patch: driftPatch(change) } : { deletedOnTarget: true };
      log.warn({ id: change.id, file: change.file, ...what, selfHeal: deps.selfHeal }, deps.selfHeal ? 'drift found; reverting' : 'drift found; reporting only (--no-self-heal)');
    }
    if (full) this.noteRefusal(plan.prune.refused);
    // A refused prune still writes: deletesOf() leaves the plan's deletions out (apply-plan.ts).
    const result = await applyPlan(plan, { api: deps.planContext.api, kinds: kindOf, log, concurrency: deps.planContext.concurrency, validation: 'skip-invalid', ...(signal ? { signal } : {}) });
    if (result.kind === 'rejected') throw new Error('unreachable: skip-invalid never rejects');
    signal?.throwIfAborted();
    const rejected = new Map(result.skippedInvalid.map((v) => [v.id, v.message]));
    const settled = settleFiles(planned.plan, { outcomes: result.outcomes, rejected, drifted: new Set(drift.map((c) => c.id)), hashes }, deps.selfHeal);
    recordSynced(this.memory, settled.synced);
    const desired = new Map(planned.desired.dashboards.map((d) => [d.id as string, d]));
    const at = new Date().toISOString();
    for (const file of settled.files) {
      this.showFile(file, desired.get(file.change.id));
      if (file.result !== undefined) status.recordFile(file.change.file, { id: file.id, kind: itemKind(file.change), result: file.result, at, ...(file.error !== undefined ? { error: file.error } : {}) });
    }
    // A write's outcome does not say its kind, its file's change does; a delete's outcome says it.
    const kindByFile = new Map(settled.files.map((f) => [f.change.file, itemKind(f.change)]));
    for (const outcome of result.outcomes) status.recordWrite(outcome, 'file' in outcome ? (kindByFile.get(outcome.file) ?? 'dashboard') : itemKind(outcome));
    const deletedIds = new Set(result.outcomes.filter((o) => o.action === 'delete' && o.status === 'deleted').map((o) => o.id));
    const counts = { ...countOutcomes(result.outcomes), unchanged: result.unchanged, drift: drift.length, rejected: rejected.size, invalid: new Set(planned.diagnostics.map((d) => d.file)).size };
    return { counts, deletedIds };
  }

  /** Lists invalid files in the status; logs a file's problems when they are new, not again at every resync. */
  private recordInvalid(diagnostics: readonly Diagnostic[], pass: ReconcilePass): void {
    const { status } = this.deps;
    const before = new Map(status.invalid().map((i) => [i.file, i.errors.join('\n')]));
    status.recordInvalid(diagnostics, { full: pass.full, files: pass.files }, formatDiagnostic);
    const changed = new Set(status.invalid().filter((i) => before.get(i.file) !== i.errors.join('\n')).map((i) => i.file));
    for (const d of diagnostics) {
      if (changed.has(d.file)) this.log.error({ where: formatDiagnostic(d), file: d.file, line: d.line, col: d.col }, 'invalid dashboard file; nothing of it is applied until it is fixed');
    }
  }

  /**
   * Logs a file's warnings (unknown keys, with their did-you-mean), as `validate` prints them, when they are new:
   * the daemon applied such a file without a word about the key it ignored. Files the pass read without any are
   * forgotten, so a warning that comes back is logged again.
   */
  private recordWarnings(warnings: readonly Diagnostic[], invalid: readonly Diagnostic[], pass: ReconcilePass): void {
    // An invalid file is not applied at all: "applied without" its unknown keys would contradict its error line.
    const refused = new Set(invalid.map((d) => d.file));
    const byFile = new Map<string, string[]>();
    for (const w of warnings) if (!refused.has(w.file)) byFile.set(w.file, [...(byFile.get(w.file) ?? []), formatWarning(w)]);
    for (const file of pass.full ? [...this.memory.warned.keys()] : pass.files) if (!byFile.has(file)) this.memory.warned.delete(file);
    for (const [file, lines] of byFile) {
      const text = lines.join('\n');
      if (this.memory.warned.get(file) === text) continue;
      this.memory.warned.set(file, text);
      for (const where of lines) this.log.warn({ where, file }, 'dashboard file warning; the file is applied without it');
    }
  }

  /** A refused prune is counted every full pass it happens, but logged only when its reason is new. */
  private noteRefusal(refused: string | undefined): void {
    const noted = noteRefusal(refused, this.memory);
    this.memory = noted.memory;
    if (noted.count) this.deps.status.pruneRefused();
    if (noted.announce) this.log.warn({ reason: refused }, 'prune refused; nothing deleted');
  }

  /**
   * What the console shows of the file: its layout (taken again only when the file changed) and, while the change is
   * still pending (drift reported, a write never attempted), the change itself for its before/after picture.
   */
  private showFile(file: FileSettled, dashboard: DesiredDashboard | undefined): void {
    if (!dashboard) return;
    const { status } = this.deps;
    const { change } = file;
    const before = status.shown(change.file);
    const kept = before?.contentHash === dashboard.contentHash ? before : undefined;
    const shown = kept ? { layout: kept.layout, documentKind: kept.documentKind } : packedShown(kindOf(dashboard).layout(dashboard.body));
    status.show(change.file, { id: file.id, name: change.name, contentHash: dashboard.contentHash, ...shown, ...(file.pending ? { pending: change } : {}) });
  }

  /** A full pass knows every file: forget deleted ones and the sync state of dashboards no file holds any more. */
  private forgetMissing(dashboards: readonly FileId[], diagnostics: readonly Diagnostic[]): void {
    this.deps.status.keepOnlyFiles(new Set([...dashboards.map((d) => d.file), ...diagnostics.map((d) => d.file)]));
    this.memory = forgetMissing(this.memory, dashboards.map((d) => d.id));
  }

  /**
   * What is orphaned now (a full pass without invalid files found them), each left-behind one logged once. A deleted
   * file triggers a full pass (watch-dashboards.ts), so this runs within a debounce of the deletion.
   */
  private recordOrphans(orphans: readonly Orphan[]): void {
    this.deps.status.recordOrphans(orphans);
    const settled = settleOrphans(orphans, this.memory);
    this.memory = settled.memory;
    if (settled.announce.length <= ORPHANS_LOGGED_ONE_BY_ONE) {
      for (const { id, name } of settled.announce) this.log.warn({ id, name }, 'dashboard has no file any more; it stays on the target (pruning is off)');
      return;
    }
    // A folder emptied or moved made one line per dashboard, 1,499 before the pass's summary: one line, /status lists them.
    const first = settled.announce.slice(0, ORPHANS_LOGGED_ONE_BY_ONE).map(({ id, name }) => ({ id, name }));
    this.log.warn({ count: settled.announce.length, first }, `${settled.announce.length} dashboards have no file any more; they stay on the target (pruning is off; /status lists them)`);
  }

  private finish(started: number, pass: ReconcilePass, ok: boolean, error?: string): void {
    this.deps.status.passEnded({ full: pass.full, durationMs: Date.now() - started, ok, ...(error ? { error } : {}) });
  }
}

/** Why a pass applied nothing: the commit, the environment's values, or dashcd.yaml. */
function invalidReason(diagnostics: readonly Diagnostic[], tree: PassTree | undefined): string {
  if (tree) return `commit ${tree.git.shortCommit} has invalid files; nothing was applied`;
  const value = diagnostics.find((d) => d.valueAtFault !== undefined);
  if (value) return `${value.valueAtFault} of environment ${value.env} makes files invalid; nothing was written to it until it is fixed`;
  // An environment dashcd.yaml no longer declares: its problem says so, and what to do.
  const gone = diagnostics.find((d) => d.env !== undefined);
  if (gone) return gone.message;
  return 'the project configuration is invalid; nothing was applied';
}

/** A layout as the console keeps it: packed, with its document kind beside it for the lists. */
function packedShown(layout: unknown): { layout: ReturnType<typeof packLayout>; documentKind: 'dashboard' | 'notebook' | undefined } {
  return { layout: packLayout(layout), documentKind: documentKindOf(layout) };
}
