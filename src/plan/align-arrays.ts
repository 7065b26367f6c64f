import { canonicalJson, isJsonObject, type JsonValue } from './json-value.js';

/** One step of turning array `a` into array `b`, in order: keep-and-compare a pair, drop an `a` item, insert a `b` item. */
export type AlignStep = { kind: 'pair'; a: number; b: number } | { kind: 'remove'; a: number } | { kind: 'add'; b: number };

/** Past this many cells the quadratic alignment is skipped and items are paired by position. */
const MAX_LCS_CELLS = 4_000_000;

/**
 * Aligns two arrays the way a reviewer reads them: equal items are anchors (longest common subsequence), and between
 * anchors items with the same identity (a query's `id`, a rule's `matcher`, a tile's `name` + `tileType`) are paired
 * for a member-by-member comparison; whatever is left pairs by position, then is removed or added. So deleting the
 * first of ten tiles is one `remove`, not ten `replace`s.
 */
export function alignArrays(a: readonly JsonValue[], b: readonly JsonValue[]): AlignStep[] {
  const exact = commonSubsequence(a.map(canonicalJson), b.map(canonicalJson));
  return alignAround(exact, 0, a.length, 0, b.length, (a0, a1, b0, b1) => alignByIdentity(a, b, a0, a1, b0, b1));
}

type GapAligner = (a0: number, a1: number, b0: number, b1: number) => AlignStep[];

/** Steps for the ranges [a0, a1) and [b0, b1): the given anchor pairs, with each gap between them filled by `gap`. */
function alignAround(anchors: readonly [number, number][], a0: number, a1: number, b0: number, b1: number, gap: GapAligner): AlignStep[] {
  const steps: AlignStep[] = [];
  let i = a0;
  let j = b0;
  for (const [ai, bj] of anchors) {
    steps.push(...gap(i, ai, j, bj), { kind: 'pair', a: ai, b: bj });
    i = ai + 1;
    j = bj + 1;
  }
  steps.push(...gap(i, a1, j, b1));
  return steps;
}

function alignByIdentity(a: readonly JsonValue[], b: readonly JsonValue[], a0: number, a1: number, b0: number, b1: number): AlignStep[] {
  const pairs = commonSubsequence(a.slice(a0, a1).map(identityOf), b.slice(b0, b1).map(identityOf)).map(
    ([i, j]): [number, number] => [i + a0, j + b0],
  );
  return alignAround(pairs, a0, a1, b0, b1, (i0, i1, j0, j1) => alignByPosition(a, b, i0, i1, j0, j1));
}

function alike(x: JsonValue | undefined, y: JsonValue | undefined): boolean {
  if (Array.isArray(x) || Array.isArray(y)) return Array.isArray(x) && Array.isArray(y);
  if (!isJsonObject(x) || !isJsonObject(y)) return false;
  // Items that name themselves (a notebook's sections, a tile's queries) are the same item only under the same id.
  if (typeof x.id === 'string' && typeof y.id === 'string') return x.id === y.id;
  if (x.tileType === undefined || y.tileType === undefined) return true;
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  let same = 0;
  for (const key of keys) if (Object.hasOwn(x, key) && Object.hasOwn(y, key) && canonicalJson(x[key] as JsonValue) === canonicalJson(y[key] as JsonValue)) same++;
  return same * 2 > keys.size;
}

/**
 * The rest of a gap, by position. Only objects and arrays pair (their member-level differences say more than a
 * whole replacement); a scalar that changed is shown as removed and added, as fits set-like lists such as tags.
 * Tiles pair only while they still share most of their members (a renamed tile keeps its type, size and content):
 * a tile deleted where another was inserted is one removed and one added, never an edit of one into the other.
 */
function alignByPosition(a: readonly JsonValue[], b: readonly JsonValue[], a0: number, a1: number, b0: number, b1: number): AlignStep[] {
  const steps: AlignStep[] = [];
  const paired = Math.min(a1 - a0, b1 - b0);
  for (let k = 0; k < paired; k++) {
    if (alike(a[a0 + k], b[b0 + k])) steps.push({ kind: 'pair', a: a0 + k, b: b0 + k });
    else steps.push({ kind: 'remove', a: a0 + k }, { kind: 'add', b: b0 + k });
  }
  for (let i = a0 + paired; i < a1; i++) steps.push({ kind: 'remove', a: i });
  for (let j = b0 + paired; j < b1; j++) steps.push({ kind: 'add', b: j });
  return steps;
}

/** What makes an array item "the same item, edited"; undefined when the item has no identity (never matches). */
function identityOf(item: JsonValue): string | undefined {
  if (!isJsonObject(item)) return undefined;
  // Stryker disable StringLiteral: the kind names only keep ids, matchers and names apart; any three distinct values do
  if (typeof item.id === 'string' || typeof item.id === 'number') return JSON.stringify(['id', item.id]);
  if (typeof item.matcher === 'string') return JSON.stringify(['matcher', item.matcher]);
  if (typeof item.name === 'string') return JSON.stringify(['name', item.name, item.tileType ?? null]);
  // Stryker restore StringLiteral
  return undefined;
}

/** Index pairs of a longest common subsequence; `undefined` keys never match. Common ends are trimmed first. */
export function commonSubsequence(a: readonly (string | undefined)[], b: readonly (string | undefined)[]): [number, number][] {
  const same = (i: number, j: number): boolean => a[i] !== undefined && a[i] === b[j];
  let start = 0;
  while (start < a.length && start < b.length && same(start, start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && same(endA - 1, endB - 1)) {
    endA--;
    endB--;
  }
  const head = Array.from({ length: start }, (_, k): [number, number] => [k, k]);
  const tail = Array.from({ length: a.length - endA }, (_, k): [number, number] => [endA + k, endB + k]);
  return [...head, ...middleSubsequence(same, start, endA, endB), ...tail];
}

function middleSubsequence(same: (i: number, j: number) => boolean, start: number, endA: number, endB: number): [number, number][] {
  const n = endA - start;
  const m = endB - start;
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: speed only; with an empty side the loops below pair nothing either
  if (n === 0 || m === 0) return [];
  // Stryker disable next-line EqualityOperator: a speed limit; at exactly the limit either alignment is a valid patch
  if (n * m > MAX_LCS_CELLS) return [];
  // lengths[i * (m + 1) + j] = LCS length of the suffixes starting at start + i and start + j.
  const lengths = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number): number => lengths[i * (m + 1) + j] ?? 0;
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * (m + 1) + j] = same(start + i, start + j) ? at(i + 1, j + 1) + 1 : Math.max(at(i + 1, j), at(i, j + 1));
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m; ) {
    if (same(start + i, start + j)) pairs.push([start + i++, start + j++]);
    else if (at(i + 1, j) >= at(i, j + 1)) i++;
    else j++;
  }
  return pairs;
}
