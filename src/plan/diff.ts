import type { Operation } from 'fast-json-patch';
import { alignArrays } from './align-arrays.js';
import { compareCodeUnits, isJsonObject, type JsonValue } from './json-value.js';

export interface DiffResult {
  /** RFC 6902, applied in order: array indexes account for the operations before them. */
  patch: Operation[];
  /** `before[i]` is the value operation i replaces or removes; null for an `add`. For display only. */
  before: (JsonValue | null)[];
}

/**
 * The JSON Patch from `from` to `to` (both normalised). Objects compare member by member in key order; arrays are
 * aligned first (align-arrays.ts), so an inserted or deleted item is one `add`/`remove` rather than a cascade of
 * `replace`s over every later index, which is what a positional diff (fast-json-patch's `compare`) produces.
 * Paths of kept and added items are their indexes in `to`, i.e. in the dashboard file.
 */
export function diffJson(from: JsonValue, to: JsonValue): DiffResult {
  const result: DiffResult = { patch: [], before: [] };
  // Most dashboards of a plan are unchanged: one equality walk settles them without aligning any array.
  if (jsonEqual(from, to)) return result;
  diffValue(from, to, '', result);
  return result;
}

function diffValue(from: JsonValue, to: JsonValue, path: string, out: DiffResult): void {
  if (Array.isArray(from) && Array.isArray(to)) diffArray(from, to, path, out);
  else if (isJsonObject(from) && isJsonObject(to)) diffObject(from, to, path, out);
  else if (!jsonEqual(from, to)) emit(out, { op: 'replace', path, value: to }, from);
}

function diffObject(from: Record<string, JsonValue>, to: Record<string, JsonValue>, path: string, out: DiffResult): void {
  const keys = [...new Set([...Object.keys(from), ...Object.keys(to)])].sort(compareCodeUnits);
  for (const key of keys) {
    const memberPath = `${path}/${escapeSegment(key)}`;
    const inFrom = Object.hasOwn(from, key);
    const inTo = Object.hasOwn(to, key);
    if (inFrom && inTo) diffValue(from[key] as JsonValue, to[key] as JsonValue, memberPath, out);
    else if (inFrom) emit(out, { op: 'remove', path: memberPath }, from[key] as JsonValue);
    else emit(out, { op: 'add', path: memberPath, value: to[key] as JsonValue }, null);
  }
}

function diffArray(from: JsonValue[], to: JsonValue[], path: string, out: DiffResult): void {
  // `position` is the index in the array as patched so far: kept and added items advance it, removed ones do not.
  let position = 0;
  for (const step of alignArrays(from, to)) {
    const itemPath = `${path}/${position}`;
    if (step.kind === 'pair') {
      diffValue(from[step.a] as JsonValue, to[step.b] as JsonValue, itemPath, out);
      position++;
    } else if (step.kind === 'remove') {
      emit(out, { op: 'remove', path: itemPath }, from[step.a] as JsonValue);
    } else {
      emit(out, { op: 'add', path: itemPath, value: to[step.b] as JsonValue }, null);
      position++;
    }
  }
}

/**
 * Exactly "diffValue would emit nothing" for JSON values: same shape, same keys, arrays item by item (equal arrays
 * align as pairs in order), scalars by value as JSON text has them: -0 is 0, since JSON.stringify writes both as
 * `0` (no write could turn one into the other: reporting the difference would be a change apply never settles).
 * On any other input it only answers true for the same data: an object that is not plain (a Date, a Map) never
 * matches.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b || Object.is(a, b);
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b) || !isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !jsonEqual(a[key], b[key])) return false;
  return true;
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function emit(out: DiffResult, op: Operation, before: JsonValue | null): void {
  out.patch.push(op);
  out.before.push(before);
}

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function escapeSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}
