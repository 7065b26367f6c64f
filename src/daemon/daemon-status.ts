import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Diagnostic } from '../desired/load-desired.js';
import type { GitInfo } from '../desired/git-info.js';
import { MetricsRegistry } from '../lib/metrics.js';

export type FileResult = 'created' | 'updated' | 'unchanged' | 'drift-reverted' | 'drift-reported' | 'failed' | 'invalid' | 'rejected';

export interface FileStatus {
  id?: string;
  result: FileResult;
  at: string;
  error?: string;
}

export interface PollerStatus {
  lastPollAt?: string;
  /** Newest event start time archived so far (ms). */
  position?: number;
  lagSeconds?: number;
  eventsArchived: number;
  lastError?: string;
}

/** The daemon's observable state, owned by the loops and read by the status endpoints. */
export class DaemonStatus {
  readonly startedAt = new Date().toISOString();
  git: GitInfo | undefined;
  lastReconcile: { at: string; full: boolean; durationMs: number; ok: boolean; error?: string } | undefined;
  readonly files = new Map<string, FileStatus>();
  driftCount = 0;
  invalid: { file: string; errors: string[] }[] = [];
  poller: PollerStatus = { eventsArchived: 0 };
  alive = true;

  readonly metrics = new MetricsRegistry();
  readonly countReconcile = this.metrics.counter('dashcd_reconciles_total', 'Reconcile passes by result');
  readonly countWrite = this.metrics.counter('dashcd_writes_total', 'Dashboard writes by action');
  readonly countFailure = this.metrics.counter('dashcd_write_failures_total', 'Dashboard writes that failed after retries');
  readonly countDrift = this.metrics.counter('dashcd_drift_found_total', 'Live dashboards found differing from git at resync');
  readonly countEvents = this.metrics.counter('dashcd_events_archived_total', 'Event versions appended to the archive');
  readonly setPollLag = this.metrics.gauge('dashcd_poll_lag_seconds', 'Age of the newest archived event position');
  readonly setInvalid = this.metrics.gauge('dashcd_invalid_files', 'Dashboard files currently failing validation');
  readonly observeReconcile = this.metrics.histogram('dashcd_reconcile_duration_seconds', 'Reconcile pass duration');

  setInvalidFiles(diagnostics: readonly Diagnostic[], format: (d: Diagnostic) => string): void {
    const byFile = new Map<string, string[]>();
    for (const d of diagnostics) byFile.set(d.file, [...(byFile.get(d.file) ?? []), format(d)]);
    this.invalid = [...byFile].map(([file, errors]) => ({ file, errors }));
    for (const file of byFile.keys()) this.files.set(file, { result: 'invalid', at: new Date().toISOString() });
    this.setInvalid(byFile.size);
  }

  toJSON(): object {
    return {
      startedAt: this.startedAt,
      git: this.git ?? null,
      lastReconcile: this.lastReconcile ?? null,
      driftCount: this.driftCount,
      files: Object.fromEntries([...this.files].sort(([a], [b]) => a.localeCompare(b))),
      invalid: this.invalid,
      poller: this.poller,
    };
  }
}

/** `/healthz`, `/status`, `/metrics`; answers false for any other path so the caller can route it on. */
export function handleStatusRequest(status: DaemonStatus, req: IncomingMessage, res: ServerResponse): boolean {
  const path = (req.url ?? '/').split('?')[0];
  if (path !== '/healthz' && path !== '/status' && path !== '/metrics') return false;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error: { code: 405, message: `Method ${req.method ?? ''} not allowed on ${path}` } }));
    return true;
  }
  if (path === '/metrics') {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
    res.end(status.metrics.render());
    return true;
  }
  const body = path === '/healthz' ? { status: status.alive ? 'ok' : 'stopping' } : status.toJSON();
  res.writeHead(path === '/healthz' && !status.alive ? 503 : 200, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body, null, path === '/status' ? 2 : 0));
  return true;
}
