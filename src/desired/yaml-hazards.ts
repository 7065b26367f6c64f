import { isAlias, isScalar, Lexer, parseAllDocuments, parseDocument, visit, YAMLParseError, type Document, type Node, type DocumentOptions, type EmptyStream, type ParseOptions, type ScalarTag, type SchemaOptions, type YAMLError } from 'yaml';
import { MAX_JSON_DEPTH } from '../schema/limits.js';
import { excerpt } from '../lib/quoted.js';
import { sendsIntegerAsWritten } from './exact-integer.js';

/** A problem found in a parsed document, at a source offset; the caller turns offsets into line and column. */
export interface OffsetProblem {
  offset: number;
  message: string;
}

/**
 * The most aliases one file may hold. Each costs `yaml`'s `toJS()` a look through the document (8,000 took 1.5 s, and
 * twice as many four times that); a dashboard uses a few, if any.
 */
export const MAX_ALIASES = 1000;

/**
 * Aliases `toJS()` cannot turn into a dashboard: one with no anchor before it (yaml throws on it), one inside the
 * node its anchor names (a value that contains itself: it passes the schema, then cannot be sent as JSON), and any
 * past MAX_ALIASES. Anchors are recorded as the document is walked, in its order, so each alias finds the last one
 * of its name before it, as `yaml` resolves it, without a walk of its own (8,000 aliases took 63 s that way).
 */
export function aliasProblems(doc: Document.Parsed): OffsetProblem[] {
  const problems: OffsetProblem[] = [];
  const anchors = new Map<string, Node>();
  let aliases = 0;
  visit(doc, {
    Node(_key, node, path) {
      if (!isAlias(node)) {
        if (node.anchor) anchors.set(node.anchor, node);
        return undefined;
      }
      const alias = node;
      const name = alias.source;
      const offset = alias.range?.[0] ?? 0;
      if (++aliases > MAX_ALIASES) {
        problems.push({ offset, message: `more than ${MAX_ALIASES} aliases in one file: write the values out, or use fewer aliases` });
        return visit.BREAK;
      }
      const target = anchors.get(name);
      if (target === undefined) {
        problems.push({ offset, message: `alias *${name} has no anchor &${name} before it: define the anchor first, or write the value out` });
      } else if (path.includes(target)) {
        problems.push({ offset, message: `alias *${name} is inside the node its anchor &${name} names, so the value would contain itself: write the value out` });
      }
      return undefined;
    },
  });
  return problems;
}

const INT_TAG = 'tag:yaml.org,2002:int';

/**
 * Whether a scalar's text, read as `value`, is an integer that reaches the API as written, by the document's own int
 * tags (YAML 1.2's decimal, 0o and 0x; a `%YAML 1.1` file's also 0b, 0-prefixed octal, `_` between digits and base 60).
 * Any other text (a float, a string) is none of this check's business. An integer read as Infinity is not sent as
 * written, and is judged without reading its digits exactly (a 1 MB number took 0.1 s as a BigInt).
 */
function keepsWrittenInteger(doc: Document.Parsed, source: string, value: number): boolean {
  const tag = (doc.schema.tags as ScalarTag[]).find((t) => t.tag === INT_TAG && t.test?.test(source) === true);
  if (tag === undefined) return true;
  if (!Number.isFinite(value)) return false;
  const written = tag.resolve(source, () => undefined, { intAsBigInt: true });
  return typeof written !== 'bigint' || sendsIntegerAsWritten(written, value);
}

/**
 * Integers written with more digits than a double keeps (sendsIntegerAsWritten): read as JavaScript reads them, their last
 * digits would change on the way to the API (1702373595732123456 is sent as 1702373595732123400), silently and for
 * good, since every later plan compares the changed value.
 */
export function inexactIntegers(doc: Document.Parsed): OffsetProblem[] {
  const problems: OffsetProblem[] = [];
  visit(doc, {
    Scalar(_key, node) {
      if (typeof node.value !== 'number' || Number.isSafeInteger(node.value)) return;
      if (keepsWrittenInteger(doc, node.source ?? '', node.value)) return;
      problems.push({
        offset: node.range?.[0] ?? 0,
        message: `${excerpt(node.source ?? '')} has more digits than dashcd keeps in a number (it reads numbers as JavaScript does, integers exactly up to ${Number.MAX_SAFE_INTEGER}): it would be sent as ${node.value}. Quote it if the field takes text`,
      });
    },
  });
  return problems;
}

/**
 * The document's value, or why `toJS()` cannot give one that becomes a dashboard: the alias problems above, or an
 * alias bomb (aliases of aliases expanding to more than `yaml`'s limit of 100 alias resolutions, which makes `toJS()`
 * throw), reported at the first alias. Every reader of a committer's YAML takes values through here, so none of
 * them throws or recurses without end on one.
 */
export function documentValue(doc: Document.Parsed): { ok: true; value: unknown } | { ok: false; problems: OffsetProblem[] } {
  const aliases = aliasProblems(doc);
  if (aliases.length > 0) return { ok: false, problems: aliases };
  const inexact = inexactIntegers(doc);
  if (inexact.length > 0) return { ok: false, problems: inexact };
  try {
    return { ok: true, value: doc.toJS() };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    const offset = firstAliasOffset(doc) ?? doc.contents?.range?.[0] ?? 0;
    return { ok: false, problems: [{ offset, message: `aliases expand to too many values (${error.message}): write the values out, or use fewer aliases of aliases` }] };
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

type YamlOptions = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * The most tokens `yaml`'s lexer may make of one file before `yaml` is given it: a value is two (a marker and its
 * text), each key, bracket, comma, indicator, run of blanks, line break and comment one more. `yaml` keeps every
 * token while it composes, and makes a node or an error of most: a 4 MiB file of `1,` (6.3 million tokens) took
 * 2.1 GB and 17 s on a check worker of the daemon, from one commit. At this limit the worst shape we know (200,000
 * `---` lines: as many documents) takes a `validate` process 300 MB and 2 s; the largest real file we know, a 2.2 MB notebook export, has 282,063.
 */
export const MAX_YAML_TOKENS = 400_000;

/**
 * Whether `yaml`'s lexer makes more than MAX_YAML_TOKENS of `source`. Counted only as far as the limit, and not at
 * all for a text too short to reach it (no character makes more than two tokens; the lexer's first marker is one).
 * The lexer's tokens are strings it lets go of one by one: counting holds nothing.
 */
export function hasTooManyTokens(source: string): boolean {
  // Stryker disable next-line EqualityOperator: equivalent: 2 * length + 1 is odd and the limit even, so never equal
  if (2 * source.length + 1 <= MAX_YAML_TOKENS) return false;
  let tokens = 0;
  for (const _token of new Lexer().lex(source)) if (++tokens > MAX_YAML_TOKENS) return true;
  return false;
}

/** Documents refused by the token limit, which a caller holding the value another way can still check (isTooManyTokens). */
const refusedForTokens = new WeakSet<Document.Parsed>();

/** An empty document whose one error says the text is too large to parse: nothing of the text is built. */
function tooManyTokensDocument(options: YamlOptions): Document.Parsed {
  const doc = parseDocument('', options);
  // Positions in an empty text are on line 0: the error, and anything placed by path, point at 1:1.
  options.lineCounter?.addNewLine(0);
  const message = `more than ${MAX_YAML_TOKENS.toLocaleString('en-US')} YAML tokens (values, keys, punctuation, blanks, comments) in one file: make it smaller, or write it as JSON or plain block YAML (no anchors, tags or tabs), which a dashboard or document file is read in up to 4 MiB`;
  doc.errors.push(new YAMLParseError([0, 0], 'RESOURCE_EXHAUSTION', message));
  refusedForTokens.add(doc);
  return doc;
}

/** Whether `doc` is the refusal of a text past MAX_YAML_TOKENS (parseYamlDocument). */
export function isTooManyTokens(doc: Document.Parsed): boolean {
  return refusedForTokens.has(doc);
}

/**
 * Runs `parse` with no stack captured for the errors made meanwhile: `yaml` makes an Error per problem, and a text of
 * 64,000 of them took 2.5 times as long, and three times the memory, with their stacks, which no one reads.
 */
function withoutStacks<T>(parse: () => T): T {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return parse();
  } finally {
    Error.stackTraceLimit = limit;
  }
}

/**
 * `parseDocument` for a committer's YAML, with the errors worth showing. `yaml`'s own unique-key check compares each
 * key with every key before it in its map: a 2 MiB dashcd.yaml of 56,000 values took 47 s to parse with it (5 s
 * without), on the daemon's thread. Every reader of such a file parses through here, where the same errors are found
 * with one Set per map; and of the syntax errors only the first is kept (firstSyntaxError).
 */
export function parseYamlDocument(source: string, options: YamlOptions = {}): Document.Parsed {
  if (hasTooManyTokens(source)) return tooManyTokensDocument(options);
  return withoutStacks(() => firstSyntaxError(checkUniqueKeys(parseDocument(source, { ...options, uniqueKeys: false }), source), source));
}

/** `parseAllDocuments` with the errors of parseYamlDocument. */
export function parseYamlDocuments(source: string, options: YamlOptions = {}): Document.Parsed[] | EmptyStream {
  if (hasTooManyTokens(source)) return [tooManyTokensDocument(options)];
  return withoutStacks(() => {
    const docs = parseAllDocuments(source, { ...options, uniqueKeys: false });
    for (const doc of docs) firstSyntaxError(checkUniqueKeys(doc, source), source);
    return docs;
  });
}

/**
 * One stray `[` made `yaml` report ten errors over the next lines, each a consequence of the one before. Of the
 * errors that are not repeated keys (each its own mistake, all kept), only the first by place is kept, saying how
 * many more followed it.
 */
function firstSyntaxError(doc: Document.Parsed, source: string): Document.Parsed {
  const syntax = doc.errors.filter((error) => error.code !== 'DUPLICATE_KEY');
  if (syntax.length === 0) return doc;
  const first = syntax.reduce((earliest, error) => (error.pos[0] < earliest.pos[0] ? error : earliest));
  const more = syntax.length - 1;
  const shown = overIndentedKey(source, first) ?? underIndentedKey(source, first) ?? (more === 0 ? first : new YAMLParseError(first.pos, first.code, `${first.message} (and ${more} more YAML error${more === 1 ? '' : 's'} after it, most likely from this one)`));
  const kept = doc.errors.flatMap((error) => (error === first ? [shown] : error.code === 'DUPLICATE_KEY' ? [error] : []));
  doc.errors.splice(0, doc.errors.length, ...kept);
  return doc;
}

/** A line that starts with a key (after its indentation): no `-`, quote, bracket or comment first, `:` and a blank after. */
const KEY_LINE = /^[^\s#'"[{-][^:#]*:(?:\s|$)/;

/**
 * The other slip, a key indented less than the key above it but more than its parent's: `yaml` says only "All mapping
 * items must start at the same column" (or, in a list item, "Sequence item without - indicator") at the line's start.
 * Said at the key, and by how much. Undefined for any other error.
 */
function underIndentedKey(source: string, error: YAMLParseError): YAMLParseError | undefined {
  if (error.code !== 'BAD_INDENT' && error.code !== 'MISSING_CHAR') return undefined;
  const lineStart = source.lastIndexOf('\n', error.pos[0] - 1) + 1;
  const lineEnd = source.indexOf('\n', lineStart);
  const line = source.slice(lineStart, lineEnd === -1 ? source.length : lineEnd);
  const indent = line.length - line.trimStart().length;
  if (indent === 0 || !KEY_LINE.test(line.slice(indent))) return undefined;
  const above = lineAbove(source, lineStart);
  if (above === undefined) return undefined;
  // Where the key of the line above starts: after its indentation and any `- ` of a list item.
  const keyColumn = /^[ ]*(?:-[ ]+)*/.exec(above)?.[0].length ?? 0;
  if (indent >= keyColumn) return undefined;
  const spaces = keyColumn - indent;
  const at = lineStart + indent;
  return new YAMLParseError([at, at + 1], error.code, `this key is indented ${spaces} space${spaces === 1 ? '' : 's'} less than the key on the line above and lines up with no key before it, so YAML cannot place it: indent it as the keys it belongs with`);
}

/** The nearest line above `lineStart` that holds content (not blank, not only a comment). */
function lineAbove(source: string, lineStart: number): string | undefined {
  for (let end = lineStart - 1; end > 0; ) {
    const start = source.lastIndexOf('\n', end - 1) + 1;
    const line = source.slice(start, end);
    if (line.trim() !== '' && !line.trimStart().startsWith('#')) return line;
    end = start - 1;
  }
  return undefined;
}

/**
 * The commonest slip, a key indented one space more than the key above it, is read by `yaml` as more of that key's
 * value and reported there ("Nested mappings are not allowed in compact mappings" at the line above): said at the
 * line that is wrong instead, and how. Undefined for any other error.
 */
function overIndentedKey(source: string, error: YAMLParseError): YAMLParseError | undefined {
  if (error.code !== 'BLOCK_AS_IMPLICIT_KEY' && error.code !== 'MULTILINE_IMPLICIT_KEY') return undefined;
  const lineStart = source.lastIndexOf('\n', error.pos[0] - 1) + 1;
  const lineEnd = source.indexOf('\n', error.pos[0]);
  if (lineEnd === -1) return undefined;
  // Where the key of the line above starts: after its indentation and any `- ` of a list item.
  const keyColumn = /^[ ]*(?:-[ ]+)*/.exec(source.slice(lineStart, lineEnd))?.[0].length ?? 0;
  const nextEnd = source.indexOf('\n', lineEnd + 1);
  const next = source.slice(lineEnd + 1, nextEnd === -1 ? source.length : nextEnd);
  const indent = next.length - next.trimStart().length;
  if (indent <= keyColumn || !KEY_LINE.test(next.slice(indent))) return undefined;
  const at = lineEnd + 1 + indent;
  const spaces = indent - keyColumn;
  return new YAMLParseError([at, at + 1], error.code, `this key is indented ${spaces} space${spaces === 1 ? '' : 's'} more than the key on the line above, so YAML reads it as part of that key's value: line it up with that key`);
}

/**
 * Adds to `doc.errors` the DUPLICATE_KEY errors `yaml` reports when it checks keys itself, at the same places, among
 * the others by place, and returns `doc` (`source` is the text it was parsed from). Keys compare as `yaml`
 * compares them: scalars by value (`1` and `0x1` are one key, `"1"` another; NaN is no other key), any other key
 * only to itself.
 */
function checkUniqueKeys(doc: Document.Parsed, source: string): Document.Parsed {
  const duplicates: YAMLParseError[] = [];
  visit(doc, {
    Map(_key, map) {
      const seen = new Set<unknown>();
      for (const { key } of map.items) {
        if (!isScalar(key) || Number.isNaN(key.value)) continue;
        if (!seen.has(key.value)) seen.add(key.value);
        else if (key.range) duplicates.push(duplicateAt(keyStart(key.range[0], source)));
      }
    },
  });
  // Found map by map, outer maps first. By place, where yaml reports a flow map's repeated key after any inside its
  // value: a reader sees them in the order of the text.
  duplicates.sort((a, b) => a.pos[0] - b.pos[0]);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: speed only: merging none leaves the errors as they are
  if (duplicates.length > 0) doc.errors.splice(0, doc.errors.length, ...byPlace(doc.errors, duplicates));
  return doc;
}

/**
 * What a reader is told of one of `yaml`'s errors in `source`: a repeated key by its name, a nesting error in plain
 * words, anything else in `yaml`'s own.
 */
export function yamlErrorText(error: YAMLError, source: string): string {
  if (error.code !== 'DUPLICATE_KEY') return nestingMessage(error) ?? error.message;
  const line = source.slice(error.pos[0], source.indexOf('\n', error.pos[0]) >>> 0);
  const key = line.slice(0, Math.max(1, line.search(/:(\s|$)/)));
  return `${error.message}: ${key} appears more than once`;
}

const duplicateAt = (offset: number): YAMLParseError => new YAMLParseError([offset, offset + 1], 'DUPLICATE_KEY', 'Map keys must be unique');

/** Blanks and line breaks, from where the pattern's lastIndex is set. */
const BLANKS = /[ \t\r\n]*/y;

/** Where yaml reports a key: an empty key's node starts before the blanks and line breaks that precede its `:`. */
function keyStart(offset: number, source: string): number {
  BLANKS.lastIndex = offset;
  BLANKS.exec(source);
  return BLANKS.lastIndex;
}

/** `found` (by place) merged into `errors`, whose own order is kept: each before the first error past its place. */
function byPlace(errors: readonly YAMLError[], found: readonly YAMLError[]): YAMLError[] {
  const merged: YAMLError[] = [];
  let next = 0;
  for (const error of errors) {
    while (next < found.length && (found[next] as YAMLError).pos[0] < error.pos[0]) merged.push(found[next++] as YAMLError);
    merged.push(error);
  }
  return [...merged, ...found.slice(next)];
}

/** `yaml`'s own message, except where it names an internal limit instead of the file's problem. */
export function nestingMessage(error: YAMLError): string | undefined {
  if (error.code !== 'RESOURCE_EXHAUSTION' || !/call stack/i.test(error.message)) return undefined;
  return NESTED_TOO_DEEPLY;
}

export const NESTED_TOO_DEEPLY = `collections nested too deeply to read (a dashboard nests about 10 levels; a target accepts at most ${MAX_JSON_DEPTH})`;

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

/**
 * Flow brackets (`[`, `{`) open deeper than this are never handed to `yaml`: its reader recurses per level, and a text
 * nested a few thousand deep overflows the stack — in V8 sometimes fatally (the regexp compiler runs out of memory
 * near the stack's end), not as an exception a caller could catch. Far above any file (dashboards nest about 10
 * levels) and above plain text's stray brackets.
 */
export const MAX_FLOW_DEPTH = 512;

/**
 * The offset of the first flow bracket nested deeper than MAX_FLOW_DEPTH, counting outside quoted strings and
 * comments, or undefined. A lexical bound, not a parse: it only has to keep `yaml` away from a stack overflow.
 */
export function flowNestingOffset(source: string): number | undefined {
  // Speed only: a text with no more openers than the limit cannot nest past it (a dashboard has a few dozen), and
  // counting them natively is a fraction of walking every character (~0.1 s of CPU per 1,000 files of 20 KB).
  if (!hasMoreOpeners(source, MAX_FLOW_DEPTH)) return undefined;
  let depth = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x22 /* " */) i = endOfQuoted(source, i, 0x22);
    else if (c === 0x27 /* ' */ && startsScalar(source, i)) i = endOfQuoted(source, i, 0x27);
    else if (c === 0x23 /* # */ && startsScalar(source, i)) i = lineEnd(source, i);
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_FLOW_DEPTH) return i;
    } else if ((c === 0x5d || c === 0x7d) && depth > 0) depth--;
  }
  return undefined;
}

/** Whether the text holds more than `limit` of `[` and `{` together, wherever they stand. */
function hasMoreOpeners(source: string, limit: number): boolean {
  let count = 0;
  for (const opener of ['[', '{']) {
    for (let i = source.indexOf(opener); i >= 0; i = source.indexOf(opener, i + 1)) if (++count > limit) return true;
  }
  return false;
}

/** Whether a quote or `#` at `i` starts something (a quoted scalar, a comment) rather than sits inside plain text. */
function startsScalar(source: string, i: number): boolean {
  const before = i === 0 ? 0x20 : source.charCodeAt(i - 1);
  return before === 0x20 || before === 0x09 || before === 0x0a || before === 0x0d || before === 0x5b || before === 0x7b || before === 0x2c || before === 0x3a;
}

/** Index of the closing quote (`"` honours backslash escapes, `'` doubles itself), or the text's end. */
function endOfQuoted(source: string, start: number, quote: number): number {
  for (let i = start + 1; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (quote === 0x22 && c === 0x5c) i++;
    else if (c === quote) {
      if (quote === 0x27 && source.charCodeAt(i + 1) === 0x27) i++;
      else return i;
    }
  }
  return source.length;
}

function lineEnd(source: string, start: number): number {
  const end = source.indexOf('\n', start);
  return end < 0 ? source.length : end;
}
