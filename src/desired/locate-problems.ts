import { isMap, isScalar, isSeq, LineCounter, type Document, type Node, type YAMLError } from 'yaml';
import { formatIssuePath } from '../schema/error-envelope.js';
import { Dashboard } from '../schema/dashboard.js';
import { idProblem, isDashboardShaped, NOT_A_DASHBOARD, notADashboard, schemaErrorMap, type FileCheck, type Problem } from './dashboard-rules.js';
import { problemsBeyondTileType } from './unknown-type-tiles.js';
import { closedSetMessage, unknownKeyMessage } from './hints.js';
import { findUnknownKeys } from './unknown-keys.js';
import { documentValue, isTooManyTokens, parseYamlDocuments, tooDeepPath, TOO_DEEP_MESSAGE, yamlErrorText, type OffsetProblem } from './yaml-hazards.js';
import { pushAll } from '../lib/push-all.js';
import { quoted } from '../lib/quoted.js';

/**
 * The slow path: `yaml` with source ranges decides what the file holds and where each problem is. Positions are
 * those of the offending node, or of the nearest enclosing node that exists when the offending one is missing.
 * `known`: the value the fast parser read, for a text too large for `yaml` to build (MAX_YAML_TOKENS): its problems
 * are then found all the same, each at 1:1 with its path.
 */
export function locateProblems(source: string, known?: { value: unknown }): FileCheck {
  const lines = new LineCounter();
  const docs = parseYamlDocuments(source, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number): { line: number; col: number } => lines.linePos(offset);
  const problems: Problem[] = [];
  const syntax = (error: YAMLError): void => {
    problems.push({ ...at(error.pos[0]), path: '', message: yamlErrorText(error, source) });
  };
  if (docs.length === 0) {
    if ('errors' in docs) docs.errors.forEach(syntax);
    problems.push({ line: 1, col: 1, path: '', message: `${NOT_A_DASHBOARD} (the file holds no YAML document)` });
    return fail(problems);
  }
  const first = docs[0] as Document.Parsed;
  if (known !== undefined && isTooManyTokens(first)) return valueProblems(known.value, first, at);
  docs.forEach((doc) => doc.errors.forEach(syntax));
  const second = docs[1];
  if (second !== undefined) {
    problems.push({ ...at(second.range[0]), path: '', message: 'more than one YAML document (---): a dashboard file holds exactly one' });
  }
  // A duplicate key leaves a well-formed document behind, so its schema problems are worth reporting as well.
  if (second !== undefined || problems.length > duplicateKeyCount(first)) return fail(problems);
  const fromOffset = (p: OffsetProblem): Problem => ({ ...at(p.offset), path: '', message: p.message });
  const read = documentValue(first);
  if (!read.ok) return fail([...problems, ...read.problems.map(fromOffset)]);
  return valueProblems(read.value, first, at, problems);
}

/**
 * Everything a dashboard file's value decides, each problem placed through `doc` (an empty document places every
 * one at its start), after the `earlier` problems of the text.
 */
function valueProblems(value: unknown, doc: Document.Parsed, at: (offset: number) => { line: number; col: number }, earlier: Problem[] = []): FileCheck {
  const problems = [...earlier];
  const root = doc.contents;
  if (!isDashboardShaped(value)) {
    problems.push({ ...(root ? at(root.range[0]) : { line: 1, col: 1 }), path: '', message: notADashboard(value) });
    return fail(problems);
  }
  const deep = tooDeepPath(value);
  if (deep !== undefined) problems.push({ ...at(nodeOffset(doc, deep)), path: formatIssuePath(deep), message: TOO_DEEP_MESSAGE });
  pushAll(problems, schemaProblems(value, doc, at));
  const badId = idProblem(value.id);
  if (badId !== undefined) problems.push({ ...at(nodeOffset(doc, ['id'])), path: 'id', message: badId });
  const warnings = unknownKeyWarnings(value, doc, at);
  if (problems.length > 0) return fail(problems, warnings);
  return warnings.length > 0 ? { ok: true, value, warnings } : { ok: true, value };
}

function fail(problems: Problem[], warnings: Problem[] = []): FileCheck {
  return { ok: false, problems: byPosition(problems), ...(warnings.length > 0 ? { warnings } : {}) };
}

function byPosition(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** Each unknown key at the key itself, with a did-you-mean when a known key is close. */
function unknownKeyWarnings(value: unknown, doc: Document.Parsed, at: (offset: number) => { line: number; col: number }): Problem[] {
  const warnings = findUnknownKeys(value).map((unknown) => {
    const offset = keyOffset(doc, unknown.parent, unknown.key);
    return { ...at(offset), path: formatIssuePath([...unknown.parent, unknown.key]), message: unknownKeyMessage(unknown) };
  });
  return byPosition(warnings);
}

/** Where the key `key` of the mapping at `parent` is written; the parent's position when there is no such key. */
function keyOffset(doc: Document.Parsed, parent: readonly PropertyKey[], key: string): number {
  const located = locate(doc, parent);
  const pair = located.exact && isMap(located.node) ? located.node.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
  return (pair?.key as Node | undefined)?.range?.[0] ?? located.offset;
}

function duplicateKeyCount(doc: Document.Parsed): number {
  return doc.errors.filter((e) => e.code === 'DUPLICATE_KEY').length;
}

function schemaProblems(
  value: Record<string, unknown>,
  doc: Document.Parsed,
  at: (offset: number) => { line: number; col: number },
): Problem[] {
  const parsed = Dashboard.safeParse(value, { error: schemaErrorMap });
  if (parsed.success) return [];
  return [...parsed.error.issues, ...problemsBeyondTileType(value, parsed.error.issues)].map((issue) => {
    const located = locate(doc, issue.path);
    const found: unknown = located.exact && isScalar(located.node) ? located.node.toJSON() : undefined;
    const shown = found !== undefined && (issue.code === 'invalid_union' || issue.code === 'invalid_value');
    return {
      ...at(located.offset),
      path: formatIssuePath(issue.path),
      message: closedSetMessage(issue, found) ?? (shown ? `${issue.message} (found ${quoted(found)})` : issue.message),
    };
  });
}

function nodeOffset(doc: Document.Parsed, path: readonly PropertyKey[]): number {
  return locate(doc, path).offset;
}

interface Located {
  node: Node | null;
  offset: number;
  /** False when the path ends in a member that does not exist: `offset` is then its parent's. */
  exact: boolean;
}

/** Walks `path` through the document's nodes as far as it exists. */
function locate(doc: Document.Parsed, path: readonly PropertyKey[]): Located {
  let node: Node | null = doc.contents;
  let offset = node?.range?.[0] ?? 0;
  for (const segment of path) {
    const child = childOf(node, segment);
    if (child === undefined) return { node, offset, exact: false };
    node = child.node;
    offset = child.offset;
  }
  return { node, offset, exact: true };
}

/** A member's node and where to point at it: the value, or its key when the value is empty (`bounds:`). */
function childOf(node: Node | null, segment: PropertyKey): { node: Node | null; offset: number } | undefined {
  if (isMap(node)) {
    const pair = node.items.findLast((p) => isScalar(p.key) && String(p.key.value) === String(segment));
    if (pair === undefined) return undefined;
    const key = pair.key as Node;
    const value = pair.value as Node | null;
    const empty = value === null || (isScalar(value) && value.value === null && value.range?.[0] === value.range?.[1]);
    return { node: value, offset: (empty ? key.range?.[0] : value.range?.[0]) ?? 0 };
  }
  if (isSeq(node) && typeof segment === 'number') {
    const item = node.items[segment] as Node | null | undefined;
    if (item === undefined) return undefined;
    return { node: item, offset: item?.range?.[0] ?? node.range?.[0] ?? 0 };
  }
  // Scalars have no members, and through an alias the node is elsewhere: the caller points at this node.
  return undefined;
}

/** Where a valid file's top-level `id` is (its value), for messages about it; 1:1 when it has none. */
export function idPosition(source: string, path: readonly string[] = ['id']): { line: number; col: number } {
  const found = sourceLocator(source).at(path);
  return found.exact ? { line: found.line, col: found.col } : { line: 1, col: 1 };
}

export interface SourcePosition {
  /** 1-based. */
  line: number;
  col: number;
  /** Offsets in the text: where the node starts and ends (for a scalar, its whole written form). */
  start: number;
  end: number;
  /** False when the path ends in a member that does not exist: the position is then its nearest ancestor's. */
  exact: boolean;
}

export interface SourceLocator {
  at(path: readonly PropertyKey[]): SourcePosition;
  /** 1-based line and column of the key that ends `path` (an unknown key is pointed at, not its value). */
  keyAt(path: readonly PropertyKey[]): { line: number; col: number };
  /** 1-based line and column of an offset in the text. */
  linePos(offset: number): { line: number; col: number };
}

/**
 * Positions of paths in one file's first YAML document, parsed once for any number of look-ups: what a stage
 * working on the parsed value (environments, after values are applied) needs to point back at the text.
 */
export function sourceLocator(source: string): SourceLocator {
  const lines = new LineCounter();
  // Its errors are never shown (the caller has its own): pretty ones would quote the source, and over a text nested
  // thousands deep making them ran V8's regexp compiler out of memory (a fatal error, not an exception).
  return documentLocator(parseYamlDocuments(source, { lineCounter: lines, prettyErrors: false })[0], lines);
}

/** Positions of paths in a document already parsed with `lines` as its line counter (sourceLocator). */
export function documentLocator(doc: Document.Parsed | undefined, lines: LineCounter): SourceLocator {
  return {
    at(path) {
      if (doc === undefined) return { line: 1, col: 1, start: 0, end: 0, exact: false };
      const located = locate(doc, path);
      const end = located.exact ? (located.node?.range?.[1] ?? located.offset) : located.offset;
      return { ...lines.linePos(located.offset), start: located.offset, end, exact: located.exact };
    },
    keyAt(path) {
      if (doc === undefined || path.length === 0) return { line: 1, col: 1 };
      return lines.linePos(keyOffset(doc, path.slice(0, -1), String(path[path.length - 1])));
    },
    linePos: (offset) => lines.linePos(offset),
  };
}
