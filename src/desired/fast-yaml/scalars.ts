import { sendsIntegerAsWritten } from '../exact-integer.js';

/**
 * Scalar resolution for the fast YAML path. Each function mirrors, line for line where it matters, what `yaml` 2.x
 * does for the same source (core schema, `resolve-flow-scalar.js`, `resolve-block-scalar.js`), because the fast
 * path must produce exactly the value `parseDocument(...).toJS()` gives. Anything `yaml` would report as an error
 * throws BAIL so the caller falls back to `yaml` itself.
 */

/** Thrown (never caught outside the fast parser) when the input leaves the subset the fast path handles. */
export const BAIL: unique symbol = Symbol('bail');

const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;

/** The core schema's plain-scalar resolution, tags tried in `yaml`'s order (null, bool, int…, float…). */
export function resolvePlain(source: string): unknown {
  if (source === '') return null;
  const c = source.charCodeAt(0);
  // Only these first characters can match a non-string tag; everything else is a string without a regex run.
  if (c === 0x7e || c === 0x6e || c === 0x4e) return NULL.test(source) ? null : source;
  if (c === 0x74 || c === 0x54 || c === 0x66 || c === 0x46) {
    return BOOL.test(source) ? source[0] === 't' || source[0] === 'T' : source;
  }
  const numeric = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
  if (!numeric) return source;
  if (INT_OCT.test(source)) return exactInteger(source, parseInt(source.substring(2), 8));
  if (INT.test(source)) return exactInteger(source, parseInt(source, 10));
  if (INT_HEX.test(source)) return exactInteger(source, parseInt(source.substring(2), 16));
  if (FLOAT_NAN.test(source)) {
    if (source.slice(-3).toLowerCase() === 'nan') return NaN;
    return source[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (FLOAT_EXP.test(source) || FLOAT.test(source)) return parseFloat(source);
  return source;
}

/** An integer that reaches the API as written; any other is declined, for `yaml`'s reading to report (inexactIntegers). */
function exactInteger(source: string, value: number): number {
  // Most integers are safe: no BigInt for them. One read as Infinity (hundreds of digits) is declined without one.
  if (Number.isSafeInteger(value)) return value;
  // The core schema's three forms (decimal with a sign or leading zeros, 0o, 0x) are all BigInt's own.
  if (!Number.isFinite(value) || !sendsIntegerAsWritten(BigInt(source), value)) throw BAIL;
  return value;
}

/** True when a plain scalar resolves to a string, the only keys the fast path accepts. */
export function isStringPlain(source: string): boolean {
  return typeof resolvePlain(source) === 'string';
}

/** Line folding of plain and single-quoted scalars (`unfoldLines` in `yaml`); tabs never reach here. */
export function unfoldLines(source: string): string {
  let nl = source.indexOf('\n');
  if (nl === -1) return source;
  let res = trimSpacesEnd(source.slice(0, nl));
  let sep = ' ';
  let start = nl + 1;
  while ((nl = source.indexOf('\n', start)) !== -1) {
    const line = trimSpacesEnd(trimSpacesStart(source.slice(start, nl)));
    if (line === '') {
      if (sep === '\n') res += sep;
      else sep = '\n';
    } else {
      res += sep + line;
      sep = ' ';
    }
    start = nl + 1;
  }
  return res + sep + trimSpacesStart(source.slice(start));
}

// Not String#trim: `yaml` trims only spaces and tabs (tabs never reach the fast path), not every Unicode space.
function trimSpacesStart(text: string): string {
  let i = 0;
  while (text.charCodeAt(i) === 0x20) i += 1;
  return i === 0 ? text : text.slice(i);
}

function trimSpacesEnd(text: string): string {
  let i = text.length;
  while (i > 0 && text.charCodeAt(i - 1) === 0x20) i -= 1;
  return i === text.length ? text : text.slice(0, i);
}

export function singleQuotedValue(inner: string): string {
  const value = inner.indexOf('\n') === -1 ? inner : unfoldLines(inner);
  return value.indexOf("''") === -1 ? value : value.replace(/''/g, "'");
}

const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0', a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', N: '\u0085',
  _: '\u00a0', L: '\u2028', P: '\u2029', ' ': ' ', '"': '"', '/': '/', '\\': '\\', '\t': '\t',
};

/** `inner` is the text between the quotes. Unknown or malformed escapes are errors in `yaml`: BAIL. */
export function doubleQuotedValue(inner: string): string {
  if (inner.indexOf('\\') === -1 && inner.indexOf('\n') === -1) return inner;
  let res = '';
  for (let i = 0; i < inner.length; ++i) {
    const ch = inner[i] as string;
    if (ch === '\n') {
      let fold = '';
      while (inner[i + 1] === ' ' || inner[i + 1] === '\n') {
        if (inner[i + 1] === '\n') fold += '\n';
        i += 1;
      }
      res += fold || ' ';
    } else if (ch === '\\') {
      i = escapeAt(inner, i, (text) => (res += text));
    } else if (ch === ' ') {
      const wsStart = i;
      while (inner[i + 1] === ' ') i += 1;
      // Trailing spaces before a line break are dropped, as `yaml` does.
      if (inner[i + 1] !== '\n') res += inner.slice(wsStart, i + 1);
    } else {
      res += ch;
    }
  }
  return res;
}

/** Handles the escape starting at `inner[i] === '\\'`; returns the index of its last character. */
function escapeAt(inner: string, i: number, emit: (text: string) => void): number {
  const next = inner[i + 1];
  if (next === undefined) throw BAIL;
  const simple = ESCAPES[next];
  if (simple !== undefined) {
    emit(simple);
    return i + 1;
  }
  if (next === '\n') {
    let j = i + 1;
    while (inner[j + 1] === ' ') j += 1;
    return j;
  }
  if (next === 'x' || next === 'u' || next === 'U') {
    const length = next === 'x' ? 2 : next === 'u' ? 4 : 8;
    const hex = inner.substr(i + 2, length);
    if (hex.length !== length || !/^[0-9a-fA-F]+$/.test(hex)) throw BAIL;
    const code = parseInt(hex, 16);
    if (code > 0x10ffff) throw BAIL;
    emit(String.fromCodePoint(code));
    return i + 1 + length;
  }
  throw BAIL;
}

export interface BlockLine {
  indent: number;
  content: string;
}

/**
 * The value of a `|`/`>` block scalar with clip or strip chomping, given its lines from the one after the header to
 * the last non-empty one (none when the scalar is empty) and the indentation of its first non-empty line. Leading
 * empty lines each give a line break; the rest is `yaml`'s literal/folded loop.
 */
export function blockScalarValue(lines: readonly BlockLine[], trimIndent: number, folded: boolean, strip: boolean): string {
  if (lines.length === 0) return '';
  let value = '';
  let sep = '';
  let prevMoreIndented = false;
  let i = 0;
  while (i < lines.length && (lines[i] as BlockLine).content === '') {
    value += ' '.repeat(Math.max(0, (lines[i] as BlockLine).indent - trimIndent)) + '\n';
    i += 1;
  }
  for (; i < lines.length; ++i) {
    const { indent, content } = lines[i] as BlockLine;
    const extra = indent > trimIndent ? ' '.repeat(indent - trimIndent) : '';
    if (!folded) {
      value += sep + extra + content;
      sep = '\n';
    } else if (indent > trimIndent) {
      if (sep === ' ') sep = '\n';
      else if (!prevMoreIndented && sep === '\n') sep = '\n\n';
      value += sep + extra + content;
      sep = '\n';
      prevMoreIndented = true;
    } else if (content === '') {
      if (sep === '\n') value += '\n';
      else sep = '\n';
    } else {
      value += sep + content;
      sep = ' ';
      prevMoreIndented = false;
    }
  }
  return strip ? value : value + '\n';
}
