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
  /** Read only by the page that draws it; a live row's is a promise of it. */
  body: unknown;
}

/** Results of the daemon's last pass for a file that mean its write did not happen. */
const FAILED_RESULTS = new Set(['failed', 'rejected']);

/** One row per dashboard: the plan's view (live against desired) corrected by what the daemon's last write did. */
export function dashboardRows(state: DashboardsState): DashboardRow[] {
  if (state.kind === 'live') {
    return state.dashboards.map((d) => lazyBody({ key: d.id, name: d.name, status: 'live', kind: rowKind(undefined, d.documentKind), file: undefined, detail: '', change: undefined, problems: [] }, () => d.body()));
  }
  const byFile = groupByFile(state.problems);
  const planned = state.changes.map((change) => planRow(change, state.results, byFile, state.shown ?? {}));
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

function planRow(change: PlanChange, results: Desired['results'], problems: Map<string, ConsoleProblem[]>, shown: NonNullable<Desired['shown']>): DashboardRow {
  const file = 'file' in change ? change.file : undefined;
  const held = shown[change.id];
  const documentKind = 'desired' in change ? documentKindOf(change.desired) : held?.documentKind;
  const base = { key: change.id, name: change.name, kind: rowKind(change, documentKind), file, change, problems: file === undefined ? [] : (problems.get(file) ?? []) };
  // An unchanged file's body is read (unpacked, in the daemon) only by the one page that draws it, never for a list.
  const row = (fields: Omit<DashboardRow, 'body' | keyof typeof base>): DashboardRow => {
    if ('desired' in change) return { ...base, ...fields, body: change.desired };
    return lazyBody({ ...base, ...fields }, () => held?.body());
  };
  // Stryker disable next-line ConditionalExpression: results are keyed by file path, and no path is "undefined"
  const last = file === undefined ? undefined : results[file];
  if (last && FAILED_RESULTS.has(last.result)) return row({ status: 'failed', detail: `${last.result} at ${last.at}${last.error ? `: ${last.error}` : ''}` });
  switch (change.action) {
    case 'unchanged':
      return row({ status: 'synced', detail: '' });
    case 'update':
    case 'adopt':
      return row({ status: 'drifted', detail: `${change.patch.length} difference${change.patch.length === 1 ? '' : 's'} from the file` });
    case 'create':
      return row({ status: 'drifted', detail: 'not on the target yet' });
    default:
      return row({ status: 'orphan', detail: change.action === 'delete' ? 'no file; pruning deletes it' : 'no file; kept (pruning is off)' });
  }
}

/** A row whose body is read when a page asks for it (a live one's is a promise: the page awaits it). */
function lazyBody(fields: Omit<DashboardRow, 'body'>, body: () => unknown): DashboardRow {
  return Object.defineProperty<DashboardRow>({ ...fields, body: undefined }, 'body', { enumerable: true, get: body });
}

function invalidRow(file: string, problems: readonly ConsoleProblem[]): DashboardRow {
  const first = problems[0];
  return { key: file, name: file, status: 'invalid', kind: undefined, file, detail: first ? `${first.path}: ${first.message}` : '', change: undefined, problems, body: undefined };
}

/** Which document a body in the file form (`document:`) is; undefined for anything else. */
export function documentKindOf(body: unknown): 'dashboard' | 'notebook' | undefined {
  const block = typeof body === 'object' && body !== null ? (body as { document?: unknown }).document : undefined;
  const kind = typeof block === 'object' && block !== null ? (block as { kind?: unknown }).kind : undefined;
  return kind === 'dashboard' || kind === 'notebook' ? kind : undefined;
}

/** A body's document kind names the row; without one, the plan's change says what it can. */
function rowKind(change: PlanChange | undefined, documentKind: 'dashboard' | 'notebook' | undefined): string {
  if (documentKind !== undefined) return documentKind === 'notebook' ? 'notebook' : 'platform dashboard';
  return (change && kindLabel(change)) || 'dashboard';
}

function groupByFile(problems: readonly ConsoleProblem[]): Map<string, ConsoleProblem[]> {
  const byFile = new Map<string, ConsoleProblem[]>();
  for (const problem of problems) byFile.set(problem.file, [...(byFile.get(problem.file) ?? []), problem]);
  return byFile;
}
