import type { ApplyOutcome } from '../apply/apply-plan.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import type { GitInfo } from '../desired/git-info.js';
import { labelledMetrics, MetricsRegistry, type MetricsScope } from '../lib/metrics.js';
import type { PlanChange } from '../plan/build-plan.js';
import type { PackedLayout } from './packed-layout.js';
import type { SourceStatus } from './source-status.js';
import { ItemKind, type FileStatus, type HealthJson, type KindCounts, type LoopStatusJson, type PollerStatus, type SingleStatusJson } from './status-schema.js';
import type { StatusView } from './status-endpoints.js';
import { detached } from '../lib/detached.js';

export type { FileResult, FileStatus, PollerStatus } from './status-schema.js';

/** The kind of a plan change, an apply outcome or a live stub, as `/status` and the metrics' `kind` label name it. */
export function itemKind(item: { kind?: 'document' | undefined }): ItemKind {
  return item.kind === 'document' ? 'document' : 'dashboard';
}

/**
 * What the console shows of one file's dashboard, kept from the last pass that planned it: the console renders what
 * the daemon knows and never reads the target itself.
 */
export interface ShownDashboard {
  id: string;
  name: string;
  /** The file's content hash when `layout` was taken: an unchanged file keeps its layout without decoding it again. */
  contentHash: string;
  /** The dashboard's layout only (preview-model.ts), not its whole body; packed until a page view shows it. */
  layout: PackedLayout;
  /** The layout's document kind, kept beside it so a console list names each row without unpacking its layout. */
  documentKind?: 'dashboard' | 'notebook' | undefined;
  /** The pass's change when it is still pending (drift reported, a write not attempted); else it was written or equal. */
  pending?: PlanChange;
}

const POLL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/**
 * The instruments of one reconcile loop; with environments each records with its `env` label. Writes, failures and
 * drift carry a `kind` label (`dashboard` or `document`): a sum over it is the total the unlabelled series used to be.
 */
function loopInstruments(metrics: MetricsScope) {
  const instruments = {
    countReconcile: metrics.counter('dashcd_reconciles_total', 'Reconcile passes by result'),
    countWrite: metrics.counter('dashcd_writes_total', 'Writes by action (create, update, delete) and kind (dashboard, document)'),
    countFailure: metrics.counter('dashcd_write_failures_total', 'Writes that failed after retries (a refused 409 included), by kind'),
    countPruneRefused: metrics.counter('dashcd_prune_refused_total', 'Full passes whose deletions the prune guards refused (--max-delete, empty folder)'),
    countDrift: metrics.counter('dashcd_drift_found_total', 'Live items found differing from an unchanged file, by kind'),
    countEvents: metrics.counter('dashcd_events_archived_total', 'Event versions appended to the archive'),
    setPollLag: metrics.gauge('dashcd_poll_lag_seconds', 'Age of the archive position (newest fully archived instant)'),
    setInvalid: metrics.gauge('dashcd_invalid_files', 'Dashboard files currently failing validation'),
    setDrifted: metrics.gauge('dashcd_drifted_dashboards', 'Items left drifted (--no-self-heal) at the last check, by kind'),
    setFiles: metrics.gauge('dashcd_files', 'Valid files the last passes planned, by kind (invalid ones: dashcd_invalid_files)'),
    setLastSuccess: metrics.gauge('dashcd_last_successful_reconcile_timestamp_seconds', 'When a reconcile pass last succeeded'),
    observeReconcile: metrics.histogram('dashcd_reconcile_duration_seconds', 'Reconcile pass duration'),
    // A poll is one pull run with its retries: a backfill or a feed outage takes minutes, not the default's seconds.
    observePoll: metrics.histogram('dashcd_poll_duration_seconds', 'Events poll duration (one pull run, retries included)', POLL_BUCKETS),
  };
  // Each kind's series exists at 0 from the start (what increase() in an alert needs), never one without `kind`
  // that the first failure or drift would replace.
  for (const kind of ItemKind.options) {
    instruments.countFailure({ kind }, 0);
    instruments.countDrift({ kind }, 0);
  }
  return instruments;
}

/**
 * One reconcile loop's observable state (the daemon's one target, or one of its environments), owned by the loop
 * and read by the status endpoints.
 */
export class DaemonStatus implements StatusView {
  readonly startedAt = new Date().toISOString();
  private git: GitInfo | undefined;
  private lastReconcile: { at: string; full: boolean; durationMs: number; ok: boolean; error?: string } | undefined;
  private readonly files = new Map<string, FileStatus>();
  private driftCount = 0;
  private invalidFiles: { file: string; errors: string[] }[] = [];
  /** Owned live dashboards no file claims (found by the last full pass; pruned only with --prune). */
  private orphans: { id: string; name: string; kind: ItemKind }[] = [];
  private poller: PollerStatus = { eventsArchived: 0 };
  /** False once shutdown starts, or when a loop died: `/healthz` answers 503 then. */
  private running = true;
  /** Following a repository: the live and pending revisions, fetching, staleness. */
  private source: SourceStatus | undefined;
  /** By file: each valid file's dashboard as the last pass left it (for the console; not in `/status`). */
  private readonly shownByFile = new Map<string, ShownDashboard>();
  /** By file: each invalid file's problems at file:line:col (for the console; `/status` lists them as text). */
  private problemsByFile = new Map<string, Diagnostic[]>();

  /** The whole exposition; `metrics` is this loop's part of it (labelled with its environment, if any). */
  readonly registry: MetricsRegistry;
  readonly metrics: MetricsScope;
  private readonly instruments: ReturnType<typeof loopInstruments>;
  private readonly now: () => number;

  constructor(options: { now?: () => number; registry?: MetricsRegistry; env?: string } = {}) {
    this.now = options.now ?? Date.now;
    this.registry = options.registry ?? new MetricsRegistry();
    this.metrics = labelledMetrics(this.registry, options.env === undefined ? {} : { env: options.env });
    this.instruments = loopInstruments(this.metrics);
    // Lag keeps growing between polls; computing it at scrape time keeps the gauge honest during a feed outage.
    this.metrics.beforeRender(() => {
      if (this.poller.position !== undefined) this.instruments.setPollLag(this.lagSeconds() ?? 0);
      for (const [kind, counts] of Object.entries(this.kindCounts())) {
        this.instruments.setDrifted(counts.drifted, { kind });
        this.instruments.setFiles(counts.files, { kind });
      }
    });
  }

  lagSeconds(): number | undefined {
    return this.poller.position === undefined ? undefined : Math.max(0, this.now() - this.poller.position) / 1000;
  }

  get alive(): boolean {
    return this.running;
  }

  /** Shutdown started, or the loop died (its events archive unusable). */
  stop(): void {
    this.running = false;
  }

  /** Following a repository: the source's state, shown in `/status` and asked why the loop is stale. */
  follow(source: SourceStatus): void {
    this.source = source;
  }

  /** The commit (and work tree state) the last plan was made at. */
  recordGit(git: GitInfo | undefined): void {
    this.git = git;
  }

  /** A file's latest result (a write, its failure, drift left alone, or equal). */
  recordFile(file: string, status: FileStatus): void {
    this.files.set(file, status);
  }

  /** A write the pass made to an item of `kind`, or one that failed after retries. */
  recordWrite(outcome: ApplyOutcome, kind: ItemKind): void {
    if (outcome.status === 'failed') this.instruments.countFailure({ kind });
    else this.instruments.countWrite({ action: outcome.action, kind });
  }

  driftFound(kind: ItemKind): void {
    this.driftCount++;
    this.instruments.countDrift({ kind });
  }

  pruneRefused(): void {
    this.instruments.countPruneRefused();
  }

  /** Owned live dashboards no file claims, as the last full pass without invalid files found them. */
  recordOrphans(orphans: readonly { id: string; name: string; kind?: 'document' | undefined }[]): void {
    this.orphans = orphans.map((o) => ({ id: o.id, name: o.name, kind: itemKind(o) }));
  }

  /** A pass ended: when, how long it took, whether it succeeded (and why not). */
  passEnded(pass: { full: boolean; durationMs: number; ok: boolean; error?: string }): void {
    const { full, durationMs, ok, error } = pass;
    this.lastReconcile = { at: new Date(this.now()).toISOString(), full, durationMs, ok, ...(error ? { error } : {}) };
    this.instruments.countReconcile({ result: ok ? 'ok' : 'failed' });
    this.instruments.observeReconcile(durationMs / 1000);
    if (ok) this.instruments.setLastSuccess(this.now() / 1000);
  }

  /** What the console shows of `file` now. */
  shown(file: string): ShownDashboard | undefined {
    return this.shownByFile.get(file);
  }

  /**
   * Kept until the file changes, so nothing in it may hold the file's whole text alive (detached.ts): its id, its name
   * and a pending change (whose body values are cut from that text too) are copies. An unchanged file's id and name,
   * copied at an earlier pass, are kept as they were rather than copied on every pass.
   */
  show(file: string, dashboard: ShownDashboard): void {
    const before = this.shownByFile.get(file);
    this.shownByFile.set(file, {
      ...dashboard,
      id: before?.id === dashboard.id ? before.id : detached(dashboard.id),
      name: before?.name === dashboard.name ? before.name : detached(dashboard.name),
      ...(dashboard.pending ? { pending: detached(dashboard.pending) } : {}),
    });
  }

  /** Each valid file's dashboard as the last pass left it, by file. */
  shownDashboards(): [string, ShownDashboard][] {
    return [...this.shownByFile];
  }

  /** The invalid files with their problems as text, by file name. */
  invalid(): readonly { file: string; errors: string[] }[] {
    return this.invalidFiles;
  }

  /** The events poller archived up to `progress` (a page, or the end of a poll); `added` of its events are new. */
  pollerProgress(progress: { watermark: number | null; written: number }, added: number): void {
    this.poller = {
      lastPollAt: new Date(this.now()).toISOString(),
      ...(progress.watermark !== null ? { position: progress.watermark } : {}),
      eventsArchived: progress.written,
    };
    this.instruments.countEvents({}, added);
  }

  /** The events poller stopped: the archive itself is unusable (lock, checkpoint); the loop is dead unless shutting down. */
  pollerStopped(error: string, shuttingDown: boolean): void {
    this.poller = { ...this.poller, lastError: error };
    if (!shuttingDown) this.running = false;
  }

  observePoll(durationMs: number): void {
    this.instruments.observePoll(durationMs / 1000);
  }

  /**
   * Records a pass's invalid files. A full pass replaces the list; a partial pass only knows about its own files,
   * so what earlier passes found elsewhere is kept.
   */
  recordInvalid(diagnostics: readonly Diagnostic[], scope: { full: boolean; files: readonly string[] }, format: (d: Diagnostic) => string): void {
    const byFile = new Map<string, string[]>();
    for (const d of diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), format(d)]);
    const inScope = new Set(scope.files);
    const kept = scope.full ? [] : this.invalidFiles.filter((i) => !inScope.has(i.file) && !byFile.has(i.file));
    const at = new Date(this.now()).toISOString();
    for (const [file, errors] of byFile) this.files.set(file, { ...identityOf(this.files.get(file)), result: 'invalid', at, error: errors.join('\n') });
    const keptFiles = new Set(kept.map((i) => i.file));
    const problems = new Map([...this.problemsByFile].filter(([file]) => keptFiles.has(file)));
    for (const d of diagnostics) problems.set(d.file, [...(problems.get(d.file) ?? []), d]);
    this.problemsByFile = problems;
    for (const file of problems.keys()) this.shownByFile.delete(file);
    this.invalidFiles = [...kept, ...[...byFile].map(([file, errors]) => ({ file, errors }))].sort((a, b) => a.file.localeCompare(b.file));
    this.instruments.setInvalid(this.invalidFiles.length);
  }

  /** After a full pass: forget files that no longer exist. */
  keepOnlyFiles(present: ReadonlySet<string>): void {
    for (const file of this.files.keys()) if (!present.has(file)) this.files.delete(file);
    for (const file of this.shownByFile.keys()) if (!present.has(file)) this.shownByFile.delete(file);
  }

  /** The invalid files' problems, file by file. */
  problems(): Diagnostic[] {
    return [...this.problemsByFile.values()].flat();
  }

  driftedFiles(): string[] {
    return [...this.files].filter(([, s]) => s.result === 'drift-reported').map(([file]) => file).sort();
  }

  /** Per kind: valid files, files left drifted and orphans. */
  kindCounts(): Record<ItemKind, KindCounts> {
    const files = [...this.files.values()];
    const count = (kind: ItemKind): KindCounts => ({
      files: files.filter((s) => s.kind === kind && s.result !== 'invalid').length,
      drifted: files.filter((s) => s.kind === kind && s.result === 'drift-reported').length,
      orphans: this.orphans.filter((o) => o.kind === kind).length,
    });
    return Object.fromEntries(ItemKind.options.map((kind) => [kind, count(kind)])) as Record<ItemKind, KindCounts>;
  }

  toJSON(): SingleStatusJson {
    return { startedAt: this.startedAt, alive: this.alive, ...this.loopJSON() };
  }

  loopJSON(): LoopStatusJson {
    const files = [...this.files].sort(([a], [b]) => a.localeCompare(b));
    const lag = this.lagSeconds();
    return {
      git: this.git ?? null,
      ...(this.source ? { source: this.source.toJSON() } : {}),
      lastReconcile: this.lastReconcile ?? null,
      driftCount: this.driftCount,
      drifted: this.driftedFiles(),
      files: Object.fromEntries(files),
      invalid: this.invalidFiles,
      orphans: this.orphans,
      kinds: this.kindCounts(),
      poller: {
        ...this.poller,
        ...(this.poller.position !== undefined ? { positionTime: new Date(this.poller.position).toISOString() } : {}),
        ...(lag !== undefined ? { lagSeconds: lag } : {}),
      },
    };
  }

  /**
   * Why what is live may not be what the source has; empty when in sync. Besides the source's reasons (following a
   * repository), the last pass's failure: until a pass succeeds (the target back, the token working, the value
   * fixed), what the folder or commit holds is not all live.
   */
  staleReasons(): string[] {
    const last = this.lastReconcile;
    return [...(this.source?.staleReasons() ?? []), ...(last && !last.ok ? [`last pass failed: ${last.error ?? 'unknown error'}`] : [])];
  }

  /**
   * Stale (the remote unreachable, a commit not applied, passes failing) is still 200: restarting the daemon would
   * not help, it retries on its own, and the last good state is live. The body says what is stale and why.
   */
  health(): HealthJson {
    if (!this.alive) return { status: 'unavailable' };
    const stale = this.staleReasons();
    return stale.length > 0 ? { status: 'stale', stale } : { status: 'ok' };
  }
}

/** What an invalid file keeps of its last valid read: its id and kind. */
function identityOf(status: FileStatus | undefined): Pick<FileStatus, 'id' | 'kind'> {
  return { ...(status?.id ? { id: status.id } : {}), ...(status?.kind ? { kind: status.kind } : {}) };
}
