import { BAIL, doubleQuotedValue, isStringPlain, resolvePlain, singleQuotedValue } from './scalars.js';
import { NL, SPACE } from './text.js';

/** Characters that end a plain scalar inside a flow collection. */
function isFlowIndicator(c: number): boolean {
  return c === 0x2c || c === 0x5b || c === 0x5d || c === 0x7b || c === 0x7d;
}

function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e;
}

/** Characters a flow plain scalar may not start with in the fast path (the rest of YAML's indicators). */
const PLAIN_START_BAIL = new Set('-?:#&*!|>%@`,[]{}'.split('').map((c) => c.charCodeAt(0)));

/**
 * A flow collection (`[...]`, `{...}`), JSON included. Accepted: quoted scalars on one line, single-line plain
 * scalars, nested collections, continuation lines indented deeper than the enclosing block. Everything else
 * (comments, trailing commas, implicit pairs in sequences, missing values, multi-line scalars) throws BAIL.
 */
export class FlowParser {
  i: number;

  constructor(
    private readonly s: string,
    start: number,
    private readonly parentIndent: number,
  ) {
    this.i = start;
  }

  value(): unknown {
    const c = this.s.charCodeAt(this.i);
    if (c === 0x5b) return this.sequence();
    if (c === 0x7b) return this.mapping();
    if (c === 0x22 || c === 0x27) return this.quoted(c);
    return this.plain();
  }

  private sequence(): unknown[] {
    const items: unknown[] = [];
    this.i += 1;
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x5d) {
      this.i += 1;
      return items;
    }
    for (;;) {
      items.push(this.value());
      this.ws();
      if (this.endOrNext(0x5d)) return items;
    }
  }

  private mapping(): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    this.i += 1;
    this.ws();
    if (this.s.charCodeAt(this.i) === 0x7d) {
      this.i += 1;
      return map;
    }
    for (;;) {
      const key = this.key();
      if (Object.prototype.hasOwnProperty.call(map, key)) throw BAIL;
      this.ws();
      map[key] = this.value();
      this.ws();
      if (this.endOrNext(0x7d)) return map;
    }
  }

  /** After an entry: `,` then another entry, or the closing bracket. A trailing comma is left to `yaml`. */
  private endOrNext(close: number): boolean {
    const c = this.s.charCodeAt(this.i);
    if (c === close) {
      this.i += 1;
      return true;
    }
    if (c !== 0x2c) throw BAIL;
    this.i += 1;
    this.ws();
    if (this.s.charCodeAt(this.i) === close) throw BAIL;
    return false;
  }

  /** A key followed by `:`; JSON-style `"k":v` adjacency is allowed after quoted keys only, as in YAML. */
  private key(): string {
    const c = this.s.charCodeAt(this.i);
    const start = this.i;
    let key: string;
    if (c === 0x22 || c === 0x27) {
      key = this.quoted(c);
      while (this.s.charCodeAt(this.i) === SPACE) this.i += 1;
      if (this.s.charCodeAt(this.i) !== 0x3a) throw BAIL;
      this.i += 1;
    } else {
      this.checkPlainStart();
      const text = this.plainText();
      if (!isStringPlain(text) || this.s.charCodeAt(this.i) !== 0x3a) throw BAIL;
      const next = this.s.charCodeAt(this.i + 1);
      if (next !== SPACE && next !== NL) throw BAIL;
      key = text;
      this.i += 1;
    }
    if (this.i - start > 1000 || key === '__proto__' || key === '<<') throw BAIL;
    return key;
  }

  private quoted(quote: number): string {
    const s = this.s;
    const end = quote === 0x22 ? doubleQuoteEnd(s, this.i) : singleQuoteEnd(s, this.i);
    const inner = s.slice(this.i + 1, end);
    if (inner.indexOf('\n') !== -1) throw BAIL;
    this.i = end + 1;
    return quote === 0x22 ? doubleQuotedValue(inner) : singleQuotedValue(inner);
  }

  private plain(): unknown {
    this.checkPlainStart();
    return resolvePlain(this.plainText());
  }

  /** Keys and values alike: `? a: 1` is an explicit key `a`, not the plain key `? a` (indicators go to `yaml`). */
  private checkPlainStart(): void {
    const c = this.s.charCodeAt(this.i);
    // `-5`, `-x`: a dash starts a plain scalar when a word character follows (JSON's negative numbers).
    if (c === 0x2d ? !isWordChar(this.s.charCodeAt(this.i + 1)) : PLAIN_START_BAIL.has(c)) throw BAIL;
  }

  private plainText(): string {
    const s = this.s;
    const start = this.i;
    let j = start;
    let end = start;
    for (; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === NL || isFlowIndicator(c)) break;
      if (c === 0x3a) {
        const n = s.charCodeAt(j + 1);
        if (j + 1 >= s.length || n === SPACE || n === NL || isFlowIndicator(n)) break;
      }
      if (c === SPACE) {
        if (s.charCodeAt(j + 1) === 0x23) throw BAIL;
      } else {
        end = j + 1;
      }
    }
    if (end === start) throw BAIL;
    this.i = j;
    return s.slice(start, end);
  }

  /** Skips spaces and line breaks; each new non-blank line must be indented deeper than the enclosing block. */
  private ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === SPACE) this.i += 1;
      else if (c === NL) this.newLine();
      else if (c === 0x23 || this.i >= s.length) throw BAIL;
      else return;
    }
  }

  private newLine(): void {
    const s = this.s;
    const lineStart = this.i + 1;
    let j = lineStart;
    while (s.charCodeAt(j) === SPACE) j += 1;
    this.i = j;
    if (j >= s.length || s.charCodeAt(j) === NL) return;
    if (j - lineStart <= this.parentIndent) throw BAIL;
    if (j === lineStart && (s.startsWith('---', j) || s.startsWith('...', j))) throw BAIL;
  }
}

/** Index of the closing `"` (escapes honoured, as `yaml`'s lexer finds it); BAIL when there is none. */
export function doubleQuoteEnd(s: string, open: number): number {
  let end = s.indexOf('"', open + 1);
  while (end !== -1) {
    let n = 0;
    while (s.charCodeAt(end - 1 - n) === 0x5c) n += 1;
    if (n % 2 === 0) return end;
    end = s.indexOf('"', end + 1);
  }
  throw BAIL;
}

/** Index of the closing `'` (`''` is an escaped quote); BAIL when there is none. */
export function singleQuoteEnd(s: string, open: number): number {
  let end = s.indexOf("'", open + 1);
  while (end !== -1 && s.charCodeAt(end + 1) === 0x27) end = s.indexOf("'", end + 2);
  if (end === -1) throw BAIL;
  return end;
}
