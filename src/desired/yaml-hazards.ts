import { visit, type Document, type YAMLError } from 'yaml';
import { MAX_JSON_DEPTH } from '../schema/limits.js';

/** A problem found in a parsed document, at a source offset; the caller turns offsets into line and column. */
export interface OffsetProblem {
  offset: number;
  message: string;
}

/**
 * Aliases `toJS()` cannot turn into a dashboard: one with no anchor before it (yaml throws on it), and one inside
 * the node its anchor names (a value that contains itself: it passes the schema, then cannot be sent as JSON).
 */
export function aliasProblems(doc: Document.Parsed): OffsetProblem[] {
  const problems: OffsetProblem[] = [];
  visit(doc, {
    Alias(_key, alias, path) {
      const name = alias.source;
      const offset = alias.range?.[0] ?? 0;
      const target = alias.resolve(doc);
      if (target === undefined) {
        problems.push({ offset, message: `alias *${name} has no anchor &${name} before it: define the anchor first, or write the value out` });
      } else if (path.includes(target)) {
        problems.push({ offset, message: `alias *${name} is inside the node its anchor &${name} names, so the value would contain itself: write the value out` });
      }
    },
  });
  return problems;
}

/**
 * The document's value, or why there is none: an alias bomb (aliases of aliases expanding to more than `yaml`'s
 * limit of 100 alias resolutions) makes `toJS()` throw, reported at the first alias.
 */
export function documentValue(doc: Document.Parsed): { ok: true; value: unknown } | { ok: false; problem: OffsetProblem } {
  try {
    return { ok: true, value: doc.toJS() };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const offset = firstAliasOffset(doc) ?? doc.contents?.range?.[0] ?? 0;
    return { ok: false, problem: { offset, message: `aliases expand to too many values (${error.message}): write the values out, or use fewer aliases of aliases` } };
  }
}

function firstAliasOffset(doc: Document.Parsed): number | undefined {
  let offset: number | undefined;
  visit(doc, {
    Alias(_key, alias) {
      offset = alias.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}

/** `yaml`'s own message, except where it names an internal limit instead of the file's problem. */
export function nestingMessage(error: YAMLError): string | undefined {
  if (error.code !== 'RESOURCE_EXHAUSTION' || !/call stack/i.test(error.message)) return undefined;
  return `collections nested too deeply to read (a dashboard nests about 10 levels; a target accepts at most ${MAX_JSON_DEPTH})`;
}

/**
 * The path to the first object or array nested deeper than a target accepts (the dashboard itself is depth 1), or
 * undefined. The recursion stops at that depth, so it is safe on any value `yaml` could read.
 */
export function tooDeepPath(value: unknown, depth = 1): PropertyKey[] | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_JSON_DEPTH) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const below = tooDeepPath(value[i], depth + 1);
      if (below) return [i, ...below];
    }
    return undefined;
  }
  for (const key in value) {
    const below = tooDeepPath((value as Record<string, unknown>)[key], depth + 1);
    if (below) return [key, ...below];
  }
  return undefined;
}

export const TOO_DEEP_MESSAGE = `nested deeper than a target accepts (${MAX_JSON_DEPTH} levels of objects and arrays): flatten it`;
