import type { PlanChange } from '../plan/build-plan.js';
import { kindLabel } from '../plan/patch-lines.js';
import type { ConsoleProblem, DashboardsState } from './console-data.js';

export const SYNC_STATUSES = ['synced', 'drifted', 'invalid', 'orphan', 'failed'] as const;
/** `live`: served without desired state (serve), so no sync status. */
export type SyncStatus = (typeof SYNC_STATUSES)[number] | 'live';
/** Every status a row can have, in the order counts are shown. */
export const ROW_STATUSES: readonly SyncStatus[] = [...SYNC_STATUSES, 'live'];

/** How many rows have each status, for the statuses that have any, in ROW_STATUSES order. */
export function statusCounts(rows: readonly { status: SyncStatus }[]): [SyncStatus, number][] {
  return ROW_STATUSES.map((s) => [s, rows.filter((r) => r.status === s).length] as [SyncStatus, number]).filter(([, n]) => n > 0);
}

export interface DashboardRow {
  /** The dashboard id, or for a file that does not parse, its path: what the dashboard page is looked up by. */
  key: string;
  name: string;
  status: SyncStatus;
  /** `dashboard` (classic), `platform dashboard`, `notebook`, or `document` (an orphan only a listing names); undefined for a file that does not parse. */
  kind?: string | undefined;
  file: string | undefined;
  /** Why: the failed write's error, the drift count, the first problem. */
  detail: string;
  change: PlanChange | undefined;
  problems: readonly ConsoleProblem[];
  body: unknown;
}

/** Results of the daemon's last pass for a file that mean its write did not happen. */
const FAILED_RESULTS = new Set(['failed', 'rejected']);

/** One row per dashboard: the plan's view (live against desired) corrected by what the daemon's last write did. */
export function dashboardRows(state: DashboardsState): DashboardRow[] {
  if (state.kind === 'live') {
    return state.dashboards.map((d) => ({ key: d.id, name: d.name, status: 'live', kind: rowKind(undefined, d.body), file: undefined, detail: '', change: undefined, problems: [], body: d.body }));
  }
  const byFile = groupByFile(state.problems);
  const planned = state.changes.map((change) => planRow(change, state.results, byFile, state.bodies ?? {}));
  const plannedFiles = new Set(planned.map((row) => row.file));
  const invalid = [...byFile].filter(([file]) => !plannedFiles.has(file)).map(([file, problems]) => invalidRow(file, problems));
  const ids = new Set(planned.map((row) => row.key));
  const orphans = (state.orphans ?? []).filter((o) => !ids.has(o.id)).map((o) => planRow({ action: 'orphan', id: o.id, name: o.name, ...(o.kind === 'document' ? { kind: 'document' as const } : {}) }, {}, byFile, {}));
  return [...invalid, ...planned, ...orphans].sort((a, b) => SYNC_STATUSES.indexOf(rank(a)) - SYNC_STATUSES.indexOf(rank(b)) || a.name.localeCompare(b.name));
}

function rank(row: DashboardRow): (typeof SYNC_STATUSES)[number] {
  // Stryker disable next-line ConditionalExpression,StringLiteral: only narrows the type: rows of desired state are never live (live rows are not sorted)
  return row.status === 'live' ? 'synced' : row.status;
}

type Desired = Extract<DashboardsState, { kind: 'desired' }>;

function planRow(change: PlanChange, results: Desired['results'], problems: Map<string, ConsoleProblem[]>, bodies: NonNullable<Desired['bodies']>): DashboardRow {
  const file = 'file' in change ? change.file : undefined;
  const body = 'desired' in change ? change.desired : bodies[change.id];
  const base = { key: change.id, name: change.name, kind: rowKind(change, body), file, change, problems: file === undefined ? [] : (problems.get(file) ?? []) };
  // Stryker disable next-line ConditionalExpression: results are keyed by file path, and no path is "undefined"
  const last = file === undefined ? undefined : results[file];
  if (last && FAILED_RESULTS.has(last.result)) return { ...base, body, status: 'failed', detail: `${last.result} at ${last.at}${last.error ? `: ${last.error}` : ''}` };
  switch (change.action) {
    case 'unchanged':
      return { ...base, body, status: 'synced', detail: '' };
    case 'update':
    case 'adopt':
      return { ...base, body, status: 'drifted', detail: `${change.patch.length} difference${change.patch.length === 1 ? '' : 's'} from the file` };
    case 'create':
      return { ...base, body, status: 'drifted', detail: 'not on the target yet' };
    default:
      return { ...base, body, status: 'orphan', detail: change.action === 'delete' ? 'no file; pruning deletes it' : 'no file; kept (pruning is off)' };
  }
}

function invalidRow(file: string, problems: readonly ConsoleProblem[]): DashboardRow {
  const first = problems[0];
  return { key: file, name: file, status: 'invalid', kind: undefined, file, detail: first ? `${first.path}: ${first.message}` : '', change: undefined, problems, body: undefined };
}

/** A body in the file form (`document:`) says which document it is; without one, the plan's change says what it can. */
function rowKind(change: PlanChange | undefined, body: unknown): string {
  const block = typeof body === 'object' && body !== null ? (body as { document?: unknown }).document : undefined;
  const kind = typeof block === 'object' && block !== null ? (block as { kind?: unknown }).kind : undefined;
  if (kind === 'dashboard' || kind === 'notebook') return kind === 'notebook' ? 'notebook' : 'platform dashboard';
  return (change && kindLabel(change)) || 'dashboard';
}

function groupByFile(problems: readonly ConsoleProblem[]): Map<string, ConsoleProblem[]> {
  const byFile = new Map<string, ConsoleProblem[]>();
  for (const problem of problems) byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), problem]);
  return byFile;
}
