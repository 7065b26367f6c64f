import type { z } from 'zod';
import { schemaErrorMap, type Problem } from './dashboard-rules.js';
import { issueMessage, unknownKeyMessage } from './hints.js';
import { LineCounter, type Document } from 'yaml';
import { documentLocator } from './locate-problems.js';
import { findUnknownKeys } from './unknown-keys.js';
import { documentValue, isTooManyTokens, parseYamlDocument, tooDeepPath, yamlErrorText } from './yaml-hazards.js';
import { DOCUMENT_FILE_SCHEMAS, type DocumentKind } from '../schema/document-content.js';
import { formatIssuePath } from '../schema/error-envelope.js';
import { detectFileKind, isPlain, type FilePath } from './detect-kind.js';
import { pushAll } from '../lib/push-all.js';
import { excerpt, quoted } from '../lib/quoted.js';

/** A problem found on a parsed file, placed in its text later by its path (desired/locate-problems.ts). */
export interface PathProblem {
  path: FilePath;
  message: string;
  /** The problem is the member itself (unknown, or missing its partner), not its value: point at its key. */
  atKey?: true;
}

/** `warnings` are unknown keys: errors only when the run is strict, as for classic dashboards. */
export interface DocumentFileCheck {
  problems: PathProblem[];
  warnings: PathProblem[];
}

/**
 * Everything a document file's value alone decides, once its kind is known (detect-kind.ts): the kind's schema,
 * tiles and layouts keyed alike, section ids unique, and unknown keys of closed objects (with a did-you-mean).
 */
export function checkDocumentFile(value: Record<string, unknown>, kind: DocumentKind): DocumentFileCheck {
  const schema: z.ZodType = DOCUMENT_FILE_SCHEMAS[kind];
  const parsed = schema.safeParse(value, { error: schemaErrorMap });
  const problems = parsed.success ? [] : parsed.error.issues.map((issue) => issueProblem(issue, value));
  pushAll(problems, kind === 'dashboard' ? layoutProblems(value) : sectionIdProblems(value));
  const warnings = findUnknownKeys(value, schema).map((found): PathProblem => ({ path: [...found.parent, found.key] as FilePath, message: unknownKeyMessage(found), atKey: true }));
  return { problems, warnings };
}

function issueProblem(issue: z.core.$ZodIssue, value: unknown): PathProblem {
  return { path: issue.path as FilePath, message: issueMessage(issue, value) };
}

/** A tile is drawn where `layouts` has its key: one without the other is a mistake the app would not make. */
function layoutProblems(value: Record<string, unknown>): PathProblem[] {
  const { tiles, layouts } = value;
  if (!isPlain(tiles) || !isPlain(layouts)) return [];
  const noLayout = Object.keys(tiles)
    .filter((key) => !Object.hasOwn(layouts, key))
    .map((key): PathProblem => ({ path: ['tiles', key], message: `tile ${quoted(key)} has no layout: add layouts.${excerpt(key)}: { x, y, w, h }`, atKey: true }));
  const noTile = Object.keys(layouts)
    .filter((key) => !Object.hasOwn(tiles, key))
    .map((key): PathProblem => ({ path: ['layouts', key], message: `layout ${quoted(key)} has no tile: no tiles.${excerpt(key)}`, atKey: true }));
  return [...noLayout, ...noTile];
}

/** Sections are matched by id (plans, overrides), so two with one id would be one section twice. */
function sectionIdProblems(value: Record<string, unknown>): PathProblem[] {
  const { sections } = value;
  if (!Array.isArray(sections)) return [];
  const first = new Map<unknown, number>();
  const problems: PathProblem[] = [];
  sections.forEach((section: unknown, index) => {
    const id = isPlain(section) ? section.id : undefined;
    if (typeof id !== 'string') return;
    const earlier = first.get(id);
    if (earlier === undefined) first.set(id, index);
    else problems.push({ path: ['sections', index, 'id'], message: `section id ${quoted(id)} is also sections[${earlier}]'s: ids must be unique` });
  });
  return problems;
}

/** A located problem list of one file, as classic checks give (`Problem`), errors and warnings apart; the value when valid. */
export interface LocatedDocumentCheck {
  problems: Problem[];
  warnings: Problem[];
  /** The file's value, when it has no problem (warnings allowed). */
  value?: Record<string, unknown>;
}

/**
 * Checks a document file's text: YAML (JSON is YAML) parsed, its kind detected, the value checked, and each
 * problem placed at `line:col` by its path. A file that is not a platform document (a classic dashboard included)
 * is a problem here: the caller dispatches by kind first.
 */
export function checkDocumentSource(source: string, parsed?: { value: unknown }): LocatedDocumentCheck {
  // A value the fast parser read (check-source.ts) that passes every check needs no positions: no second parse.
  const fast = parsed === undefined ? undefined : cleanDocument(parsed.value);
  if (fast !== undefined) return { problems: [], warnings: [], value: fast };
  // Plain messages: the position is ours to give (`file:line:col`), not a copy of the line inside the message.
  const lines = new LineCounter();
  const doc = parseYamlDocument(source, { prettyErrors: false, lineCounter: lines });
  const locator = documentLocator(doc, lines);
  const place = (p: PathProblem): Problem => {
    const { line, col } = p.atKey ? locator.keyAt(p.path) : locator.at(p.path);
    return { line, col, path: formatIssuePath(p.path), message: p.message };
  };
  const atOffset = (offset: number, message: string): Problem => ({ ...locator.linePos(offset), path: '', message });
  // A text too large for `yaml` that the fast parser read is checked all the same, every problem at 1:1.
  const read = parsed !== undefined && isTooManyTokens(doc) ? { ok: true as const, value: parsed.value } : readDocument(doc, source);
  if (!read.ok) return { problems: read.problems.map((p) => atOffset(p.offset, p.message)), warnings: [] };
  const { value } = read;
  const kind = detectFileKind(value);
  if (kind.kind !== 'platform-dashboard' && kind.kind !== 'notebook') {
    const reason = kind.kind === 'unknown' ? kind : { path: [], reason: 'a classic dashboard, not a platform document' };
    return { problems: [place({ path: reason.path, message: reason.reason })], warnings: [] };
  }
  const checked = checkDocumentFile(value as Record<string, unknown>, kind.kind === 'notebook' ? 'notebook' : 'dashboard');
  const problems = byPosition(checked.problems.map(place));
  const warnings = byPosition(checked.warnings.map(place));
  return problems.length === 0 ? { problems, warnings, value: value as Record<string, unknown> } : { problems, warnings };
}

/** The document's value, or its problems: its syntax errors, else aliases read as classic files read them (yaml-hazards.ts). */
function readDocument(doc: Document.Parsed, source: string): ReturnType<typeof documentValue> {
  if (doc.errors.length > 0) return { ok: false, problems: doc.errors.map((error) => ({ offset: error.pos[0], message: yamlErrorText(error, source) })) };
  return documentValue(doc);
}

/** The value as a document file when it is one with no problem and no warning (nesting within bounds); else undefined. */
function cleanDocument(value: unknown): Record<string, unknown> | undefined {
  const kind = detectFileKind(value);
  if (kind.kind !== 'platform-dashboard' && kind.kind !== 'notebook') return undefined;
  if (tooDeepPath(value) !== undefined) return undefined;
  const checked = checkDocumentFile(value as Record<string, unknown>, kind.kind === 'notebook' ? 'notebook' : 'dashboard');
  return checked.problems.length === 0 && checked.warnings.length === 0 ? (value as Record<string, unknown>) : undefined;
}

function byPosition(problems: Problem[]): Problem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

