import type { Operation } from 'fast-json-patch';
import { stringify } from 'yaml';
import type { Plan, PlanChange } from './build-plan.js';
import type { GitInfo } from '../desired/git-info.js';
import { parsePointer, pointerToPath } from './json-pointer.js';

export { pointerToPath };

type PatchedChange = Extract<PlanChange, { action: 'update' | 'adopt' }>;

/** Sub-lines of a multi-line value, under its `+ path:` line. */
const VALUE_INDENT = '    ';

/**
 * The people-readable form of a patch, in patch order (which is document order). A scalar is one line:
 * `~ tiles[3].name: "CPU" → "CPU usage"`, `- dashboardMetadata.tags[1]: "x"`. A tile, object, list or multi-line
 * text is shown whole, as YAML under its path, each line marked `+` (added) or `-` (removed), so a reviewer reads
 * an added tile instead of an abbreviated JSON line.
 */
export function patchLines(change: PatchedChange): string[] {
  return change.patch.flatMap((op, i) => patchLine(op, change.before[i], change.desired));
}

function patchLine(op: Operation, before: unknown, file: unknown): string[] {
  const path = displayPath(op.path, file) || '(dashboard)';
  switch (op.op) {
    case 'replace': {
      const value = asWritten(op.value, file, op.path);
      if (typeof before === 'string' && typeof value === 'string' && isLongText(before, value)) return [`~ ${path}:`].concat(changedTextLines(before, value));
      if (isBlock(before) || isBlock(value)) return [`~ ${path}:`].concat(blockLines('-', before), blockLines('+', value));
      return [`~ ${path}: ${formatValue(before)} → ${formatValue(value)}`];
    }
    case 'add': {
      const value = asWritten(op.value, file, op.path);
      return isBlock(value) ? [`+ ${path}:`, ...blockLines('+', value)] : [`+ ${path}: ${formatValue(value)}`];
    }
    case 'remove':
      return isBlock(before) ? [`- ${path}:`, ...blockLines('-', before)] : [`- ${path}: ${formatValue(before)}`];
    default:
      // diffJson only produces the three above; anything else is shown plainly rather than dropped.
      return [`${op.op} ${path}`];
  }
}

/**
 * The pointer as a reader writes the path, led by the file's own value where it has one: a member of a mapping is
 * `.name`, or `["1"]` when its key is a number (a platform dashboard's tiles and layouts are mappings keyed `"0"`,
 * `"1"`…, which must not read as list items); an item of a list is `[1]`. Where the file has nothing at a place (a
 * removed member), a number is read as a list index, as pointerToPath reads it.
 */
function displayPath(pointer: string, file: unknown): string {
  let out = '';
  let at: unknown = file;
  for (const segment of parsePointer(pointer)) {
    const mapping = isContainer(at) && !Array.isArray(at);
    if (mapping && /^(0|[1-9][0-9]*)$/.test(segment)) out += `[${JSON.stringify(segment)}]`;
    else out += pointerToPath(`/${segment.replace(/~/g, '~0').replace(/\//g, '~1')}`).replace(/^(?=[A-Za-z_$])/, out === '' ? '' : '.');
    at = isContainer(at) ? (at as Record<string, unknown>)[segment] : undefined;
  }
  return out;
}

/**
 * An added or new value as the file writes it: the patch holds the compared form, in which the service's read-side
 * defaults were filled in (service-defaults.ts: `configured: true`, `isAutoRefreshDisabled: false`, …), so an added
 * tile would show members nobody wrote. Only members the file's own value at the same place has are kept; the diff
 * puts added items at their index in the file (diff.ts), so the pointer finds them there. Where the file has no
 * object at that place (an ignore rule, a set sorted for comparison), the compared value is shown as it is.
 */
function asWritten(value: unknown, file: unknown, pointer: string): unknown {
  let written = file;
  for (const segment of parsePointer(pointer)) written = isContainer(written) ? (written as Record<string, unknown>)[segment] : undefined;
  return ownMembers(value, written);
}

function ownMembers(value: unknown, written: unknown): unknown {
  if (Array.isArray(value)) return Array.isArray(written) && written.length === value.length ? value.map((item, i) => ownMembers(item, written[i])) : value;
  if (!isContainer(value) || !isContainer(written) || Array.isArray(written)) return value;
  const own = Object.entries(value as Record<string, unknown>).filter(([key]) => Object.hasOwn(written, key));
  return Object.fromEntries(own.map(([key, member]) => [key, ownMembers(member, (written as Record<string, unknown>)[key])]));
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** Members that identify an object; shown first so an added tile says at once which tile it is. */
const IDENTIFYING_KEYS = ['name', 'tileType', 'id'];

/** A scalar on one line: compact JSON, whole. */
export function formatValue(value: unknown): string {
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

/** Objects, arrays and text with line breaks are shown as blocks; other scalars fit on the path's line. */
function isBlock(value: unknown): boolean {
  return (typeof value === 'object' && value !== null) || (typeof value === 'string' && value.includes('\n'));
}

/**
 * Text line by line as it reads; anything else as YAML, which shows a tile the way its file does. At most
 * MAX_BLOCK_LINES lines, and a value past MAX_BLOCK_JSON_BYTES is only sized: a markdown tile of 150,000 lines took
 * the text plan past the stack (exit 1), and a target's 12-million-item array took it past the heap (exit 134).
 */
function blockLines(mark: '+' | '-', value: unknown): string[] {
  const json = typeof value === 'string' ? undefined : JSON.stringify(value);
  if (json !== undefined && json.length > MAX_BLOCK_JSON_BYTES) return [`${mark}${VALUE_INDENT}(${json.length} characters of JSON: too large to list here; plan --output json has it)`];
  const text = typeof value === 'string' ? value : stringify(identifyingFirst(value), { lineWidth: 0, aliasDuplicateObjects: false }).replace(/\n$/, '');
  return cappedLines(mark, text.split('\n'));
}

function cappedLines(mark: '+' | '-', lines: readonly string[]): string[] {
  const shown = lines.slice(0, MAX_BLOCK_LINES).map((line) => `${mark}${VALUE_INDENT}${line}`.trimEnd());
  if (lines.length > shown.length) shown.push(`${mark}${VALUE_INDENT}… ${lines.length - shown.length} more lines (plan --output json has them)`);
  return shown;
}

export const MAX_BLOCK_LINES = 2_000;

/** A text past MAX_BLOCK_LINES on either side, which whole blocks would cut before the lines that changed. */
function isLongText(before: string, after: string): boolean {
  return lineCount(before) > MAX_BLOCK_LINES || lineCount(after) > MAX_BLOCK_LINES;
}

function lineCount(text: string): number {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

/** Lines kept around a long text's change, as a diff shows them. */
const TEXT_CONTEXT_LINES = 2;

/**
 * A long text's change as the lines between the ones both sides share at the start and the end, with a little
 * context: two whole blocks cut at MAX_BLOCK_LINES showed a markdown tile edited at line 2,400 as two equal blocks.
 */
function changedTextLines(before: string, after: string): string[] {
  const old = before.split('\n');
  const now = after.split('\n');
  let start = 0;
  while (start < old.length && start < now.length && old[start] === now[start]) start++;
  let end = 0;
  while (end < old.length - start && end < now.length - start && old[old.length - 1 - end] === now[now.length - 1 - end]) end++;
  const from = Math.max(0, start - TEXT_CONTEXT_LINES);
  const to = Math.min(end, TEXT_CONTEXT_LINES);
  const context = (lines: readonly string[]): string[] => lines.map((line) => ` ${VALUE_INDENT}${line}`.trimEnd());
  const lines = from > 0 ? [` ${VALUE_INDENT}… ${from} lines as before`] : [];
  return lines.concat(
    context(old.slice(from, start)),
    cappedLines('-', old.slice(start, old.length - end)),
    cappedLines('+', now.slice(start, now.length - end)),
    context(now.slice(now.length - end, now.length - end + to)),
    end > to ? [` ${VALUE_INDENT}… ${end - to} lines as before`] : [],
  );
}
const MAX_BLOCK_JSON_BYTES = 1024 * 1024;

function identifyingFirst(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(identifyingFirst);
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value);
  const order = [...IDENTIFYING_KEYS.filter((k) => keys.includes(k)), ...keys.filter((k) => !IDENTIFYING_KEYS.includes(k))];
  return Object.fromEntries(order.map((k) => [k, identifyingFirst((value as Record<string, unknown>)[k])]));
}

/**
 * `1 to create, 1 to adopt, 1 to update, 1 to delete, 3 unchanged, 1 orphan kept`: adoptions and deletions only
 * when there are any; a selective run says that it did not look for orphans.
 */
export function summaryText({ summary, scope }: Pick<Plan, 'summary' | 'scope'>): string {
  const orphans = scope === 'partial' ? 'orphans not checked (selective run)' : `${summary.orphan} orphan${summary.orphan === 1 ? '' : 's'}${summary.orphan > 0 ? ' kept' : ''}`;
  const adopt = summary.adopt > 0 ? `${summary.adopt} to adopt, ` : '';
  const deletes = summary.delete > 0 ? `${summary.delete} to delete, ` : '';
  return `${summary.create} to create, ${adopt}${summary.update} to update, ${deletes}${summary.unchanged} unchanged, ${orphans}`;
}

/** `at commit 1a2b3c4 on main` / `at commit 1a2b3c4 (detached HEAD)` / `(git: no commits yet on main)` */
export function commitText(git: GitInfo): string {
  if (git.commit === null) return `(git: ${NO_COMMITS}${git.branch ? ` on ${git.branch}` : ''})`;
  return `at commit ${git.shortCommit} ${git.branch ? `on ${git.branch}` : '(detached HEAD)'}`;
}

/** A work tree whose branch has no commit yet (after `git init`): in git, but no commit to name. */
export const NO_COMMITS = 'no commits yet';

/** The commit a plan was made at, and whether its folder had uncommitted changes then: a plan's first line. */
export function gitText(git: GitInfo): string {
  return `${commitText(git)}${git.dirty ? ` (${dirtyText(git)})` : ''}`;
}

/** `uncommitted changes in dashboards/` (or `in dashcd.yaml`, or both), naming the folder when git told us where it is. */
export function dirtyText(git: GitInfo): string {
  const { folder = true, config } = git.uncommitted ?? {};
  const places = [...(folder ? [git.dir ? `${git.dir}/` : 'the dashboards folder'] : []), ...(config === undefined ? [] : [config])];
  return `uncommitted changes in ${places.join(' and ')}`;
}

/**
 * What a change's item is, said beside its name: nothing for classic dashboards (what a plan held before documents,
 * so their lines read as they always did), `platform dashboard` or `notebook` for documents (`document` when only
 * a listing of the target names it: a delete or an orphan).
 */
export function kindLabel(change: PlanChange): string {
  if (change.kind !== 'document') return '';
  if (change.action === 'create' || change.action === 'adopt' || change.action === 'update') return change.desired.document.kind === 'notebook' ? 'notebook' : 'platform dashboard';
  return 'document';
}
