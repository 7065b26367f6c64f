import type { Operation } from 'fast-json-patch';
import type { Plan, PlanChange } from '../../plan/build-plan.js';
import type { GitInfo } from '../../desired/git-info.js';
import { pointerToPath } from '../../plan/json-pointer.js';

export { pointerToPath };

type UpdateChange = Extract<PlanChange, { action: 'update' }>;

/** Values longer than this (as JSON) are cut, so one line stays one line: a whole added tile is not a review aid. */
export const MAX_VALUE_CHARS = 80;

/**
 * The people-readable form of an update's patch, one line per operation, in patch order (which is document order):
 * `~ tiles[3].name: "CPU" → "CPU usage"`, `+ tiles[4]: {…}`, `- dashboardMetadata.tags[1]: "x"`.
 */
export function patchLines(change: UpdateChange): string[] {
  return change.patch.map((op, i) => patchLine(op, change.before[i]));
}

function patchLine(op: Operation, before: unknown): string {
  const path = pointerToPath(op.path) || '(dashboard)';
  switch (op.op) {
    case 'replace':
      return `~ ${path}: ${formatValue(before)} → ${formatValue(op.value)}`;
    case 'add':
      return `+ ${path}: ${formatValue(op.value)}`;
    case 'remove':
      return `- ${path}: ${formatValue(before)}`;
    default:
      // diffJson only produces the three above; anything else is shown plainly rather than dropped.
      return `${op.op} ${path}`;
  }
}

/** Members that identify an object; shown first so an abbreviated added tile still says which tile it is. */
const IDENTIFYING_KEYS = ['name', 'tileType', 'id'];

/** Compact JSON, abbreviated with `…` past MAX_VALUE_CHARS (cut on code points, never inside a surrogate pair). */
export function formatValue(value: unknown): string {
  const json = value === undefined ? 'undefined' : JSON.stringify(identifyingFirst(value));
  const chars = Array.from(json);
  return chars.length <= MAX_VALUE_CHARS ? json : `${chars.slice(0, MAX_VALUE_CHARS - 1).join('')}…`;
}

function identifyingFirst(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const order = [...IDENTIFYING_KEYS.filter((k) => keys.includes(k)), ...keys.filter((k) => !IDENTIFYING_KEYS.includes(k))];
  return Object.fromEntries(order.map((k) => [k, (value as Record<string, unknown>)[k]]));
}

/** Control characters in names from files or a remote service must not reach a terminal or a comment raw. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
}

/** `1 to create, 1 to update, 3 unchanged, 1 orphan`; a selective run says that it did not look for orphans. */
export function summaryText({ summary, scope }: Pick<Plan, 'summary' | 'scope'>): string {
  const orphans = scope === 'partial' ? 'orphans not checked (selective run)' : `${summary.orphan} orphan${summary.orphan === 1 ? '' : 's'}`;
  return `${summary.create} to create, ${summary.update} to update, ${summary.unchanged} unchanged, ${orphans}`;
}

/** `at commit 1a2b3c4 on main` / `at commit 1a2b3c4 (detached HEAD)` / `(git: no commits yet on main)` */
export function commitText(git: GitInfo): string {
  if (git.commit === null) return `(git: ${NO_COMMITS}${git.branch ? ` on ${git.branch}` : ''})`;
  return `at commit ${git.shortCommit} ${git.branch ? `on ${git.branch}` : '(detached HEAD)'}`;
}

/** A work tree whose branch has no commit yet (after `git init`): in git, but no commit to name. */
export const NO_COMMITS = 'no commits yet';

/** `uncommitted changes in dashboards/`, naming the folder when git told us where it is. */
export function dirtyText(git: GitInfo): string {
  return `uncommitted changes in ${git.dir ? `${git.dir}/` : 'the dashboards folder'}`;
}
