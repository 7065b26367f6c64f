import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Diagnostic } from '../desired/load-desired.js';
import type { GitInfo } from '../desired/git-info.js';
import { MetricsRegistry } from '../lib/metrics.js';
import type { SourceStatus } from './source-status.js';

export type FileResult = 'created' | 'adopted' | 'updated' | 'unchanged' | 'drift-reverted' | 'drift-reported' | 'failed' | 'invalid' | 'rejected';

export interface FileStatus {
  id?: string;
  result: FileResult;
  at: string;
  error?: string;
}

export interface PollerStatus {
  lastPollAt?: string;
  /** End of the last completed pull run (ms): everything that started before it is archived. */
  position?: number;
  eventsArchived: number;
  lastError?: string;
}

const POLL_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** The daemon's observable state, owned by the loops and read by the status endpoints. */
export class DaemonStatus {
  readonly startedAt = new Date().toISOString();
  git: GitInfo | undefined;
  lastReconcile: { at: string; full: boolean; durationMs: number; ok: boolean; error?: string } | undefined;
  readonly files = new Map<string, FileStatus>();
  driftCount = 0;
  invalid: { file: string; errors: string[] }[] = [];
  /** Owned live dashboards no file claims (found by the last full pass; pruned only with --prune). */
  orphans: { id: string; name: string }[] = [];
  poller: PollerStatus = { eventsArchived: 0 };
  /** False once shutdown starts, or when a loop died: `/healthz` answers 503 then. */
  alive = true;
  /** Following a repository: the live and pending revisions, fetching, staleness. */
  source: SourceStatus | undefined;

  readonly metrics = new MetricsRegistry();
  readonly countReconcile = this.metrics.counter('dashcd_reconciles_total', 'Reconcile passes by result');
  readonly countWrite = this.metrics.counter('dashcd_writes_total', 'Dashboard writes by action (create, update, delete)');
  readonly countFailure = this.metrics.counter('dashcd_write_failures_total', 'Dashboard writes that failed after retries');
  readonly countPruneRefused = this.metrics.counter('dashcd_prune_refused_total', 'Full passes whose deletions the prune guards refused (--max-delete, empty folder)');
  readonly countDrift = this.metrics.counter('dashcd_drift_found_total', 'Live dashboards found differing from an unchanged file');
  readonly countEvents = this.metrics.counter('dashcd_events_archived_total', 'Event versions appended to the archive');
  readonly setPollLag = this.metrics.gauge('dashcd_poll_lag_seconds', 'Age of the archive position (newest fully archived instant)');
  readonly setInvalid = this.metrics.gauge('dashcd_invalid_files', 'Dashboard files currently failing validation');
  readonly setDrifted = this.metrics.gauge('dashcd_drifted_dashboards', 'Dashboards left drifted (--no-self-heal) at the last check');
  readonly setLastSuccess = this.metrics.gauge('dashcd_last_successful_reconcile_timestamp_seconds', 'When a reconcile pass last succeeded');
  readonly observeReconcile = this.metrics.histogram('dashcd_reconcile_duration_seconds', 'Reconcile pass duration');
  // A poll is one pull run with its retries: a backfill or a feed outage takes minutes, not the default's seconds.
  readonly observePoll = this.metrics.histogram('dashcd_poll_duration_seconds', 'Events poll duration (one pull run, retries included)', POLL_BUCKETS);

  constructor(private readonly now: () => number = Date.now) {
    // Lag keeps growing between polls; computing it at scrape time keeps the gauge honest during a feed outage.
    this.metrics.beforeRender(() => {
      if (this.poller.position !== undefined) this.setPollLag(this.lagSeconds() ?? 0);
      this.setDrifted(this.driftedFiles().length);
    });
  }

  lagSeconds(): number | undefined {
    return this.poller.position === undefined ? undefined : Math.max(0, this.now() - this.poller.position) / 1000;
  }

  /**
   * Records a pass's invalid files. A full pass replaces the list; a partial pass only knows about its own files,
   * so what earlier passes found elsewhere is kept.
   */
  recordInvalid(diagnostics: readonly Diagnostic[], scope: { full: boolean; files: readonly string[] }, format: (d: Diagnostic) => string): void {
    const byFile = new Map<string, string[]>();
    for (const d of diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), format(d)]);
    const inScope = new Set(scope.files);
    const kept = scope.full ? [] : this.invalid.filter((i) => !inScope.has(i.file) && !byFile.has(i.file));
    const at = new Date(this.now()).toISOString();
    for (const [file, errors] of byFile) this.files.set(file, { ...idOf(this.files.get(file)), result: 'invalid', at, error: errors.join('\n') });
    this.invalid = [...kept, ...[...byFile].map(([file, errors]) => ({ file, errors }))].sort((a, b) => a.file.localeCompare(b.file));
    this.setInvalid(this.invalid.length);
  }

  /** After a full pass: forget files that no longer exist. */
  keepOnlyFiles(present: ReadonlySet<string>): void {
    for (const file of this.files.keys()) if (!present.has(file)) this.files.delete(file);
  }

  driftedFiles(): string[] {
    return [...this.files].filter(([, s]) => s.result === 'drift-reported').map(([file]) => file).sort();
  }

  toJSON(): object {
    const files = [...this.files].sort(([a], [b]) => a.localeCompare(b));
    const lag = this.lagSeconds();
    return {
      startedAt: this.startedAt,
      alive: this.alive,
      git: this.git ?? null,
      ...(this.source ? { source: this.source.toJSON() } : {}),
      lastReconcile: this.lastReconcile ?? null,
      driftCount: this.driftCount,
      drifted: this.driftedFiles(),
      files: Object.fromEntries(files),
      invalid: this.invalid,
      orphans: this.orphans,
      poller: {
        ...this.poller,
        ...(this.poller.position !== undefined ? { positionTime: new Date(this.poller.position).toISOString() } : {}),
        ...(lag !== undefined ? { lagSeconds: lag } : {}),
      },
    };
  }
}

/**
 * Stale (the remote unreachable, a commit not applied) is still 200: restarting the daemon would not help, and the
 * last good revision is live. The body says what is stale and why.
 */
function health(status: DaemonStatus): object {
  if (!status.alive) return { status: 'unavailable' };
  const stale = status.source?.staleReasons() ?? [];
  return stale.length > 0 ? { status: 'stale', stale } : { status: 'ok' };
}

function idOf(status: FileStatus | undefined): { id?: string } {
  return status?.id ? { id: status.id } : {};
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

/** `/healthz`, `/status`, `/metrics`; answers false for any other path so the caller can route it on. */
export function handleStatusRequest(status: DaemonStatus, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/status' && path !== '/metrics') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', ...JSON_TYPE });
    res.end(JSON.stringify({ error: { code: 405, message: `Method ${req.method ?? ''} not allowed on ${path}` } }));
    return true;
  }
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(req.method === 'HEAD' ? undefined : status.metrics.render());
    return true;
  }
  const body = path === '/healthz' ? health(status) : status.toJSON();
  res.writeHead(path === '/healthz' && !status.alive ? 503 : 200, JSON_TYPE);
  res.end(req.method === 'HEAD' ? undefined : `${JSON.stringify(body, null, path === '/status' ? 2 : 0)}\n`);
  return true;
}
