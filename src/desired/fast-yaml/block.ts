import { doubleQuoteEnd, FlowParser, singleQuoteEnd } from './flow.js';
import { readBlockScalar } from './block-scalar.js';
import { BAIL, doubleQuotedValue, isStringPlain, resolvePlain, singleQuotedValue, unfoldLines } from './scalars.js';
import { HASH, isBlank, lineAfter, NL, restOfLine, scanLine, SPACE } from './text.js';

/** First characters of a value the fast path leaves to `yaml` (anchors, aliases, tags, directives, reserved…). */
const VALUE_START_BAIL = charTable('&*!%@`,]}');
/** First characters of a plain key the fast path leaves to `yaml`. */
const LINE_START_BAIL = charTable('#-?:,[]{}&*!|>\'"%@`');

function charTable(chars: string): { has(code: number): boolean } {
  const table = new Uint8Array(128);
  for (const c of chars) table[c.charCodeAt(0)] = 1;
  return { has: (code) => code < 128 && table[code] === 1 };
}

/**
 * Block-style YAML: mappings, sequences (compact forms included), plain/quoted/literal/folded scalars and flow
 * collections, over the subset whose value is certain. `pos` is always the start of the next line to read; `ind` is
 * the indentation of the line `nextContent` found.
 */
export class BlockParser {
  private pos = 0;
  private ind = 0;
  private after = 0;
  private memoFrom = -1;
  private memoNext = -1;
  private memoInd = 0;

  constructor(private readonly s: string) {}

  document(): unknown {
    let p = this.nextContent(0);
    if (p === -1) throw BAIL;
    if (this.ind === 0 && this.isMarker(p, '---')) {
      this.finishLine(p + 3);
      p = this.nextContent(this.pos);
      if (p === -1) throw BAIL;
    }
    const at = p + this.ind;
    const c = this.s.charCodeAt(at);
    let value: unknown;
    if (c === 0x7b) {
      value = this.flow(at, -1);
    } else {
      if (this.ind !== 0 || this.isSeqIndicator(at) || this.isMarker(p, '...') || c === 0x25) throw BAIL;
      value = this.mapping(at, 0);
    }
    if (this.nextContent(this.pos) !== -1) throw BAIL;
    return value;
  }

  /**
   * From a line start, skips blank and comment lines; returns the next content line's start or -1. A collection
   * that ends and its parent both look from the same line, so the last answer is kept.
   */
  private nextContent(from: number): number {
    if (from === this.memoFrom) {
      this.ind = this.memoInd;
      return this.memoNext;
    }
    const next = this.scanToContent(from);
    this.memoFrom = from;
    this.memoNext = next;
    this.memoInd = this.ind;
    return next;
  }

  private scanToContent(from: number): number {
    const s = this.s;
    let p = from;
    while (p < s.length) {
      let q = p;
      while (s.charCodeAt(q) === SPACE) q += 1;
      if (q >= s.length) return -1;
      const c = s.charCodeAt(q);
      if (c === NL) {
        p = q + 1;
      } else if (c === HASH) {
        const nl = s.indexOf('\n', q);
        if (nl === -1) return -1;
        p = nl + 1;
      } else {
        this.ind = q - p;
        return p;
      }
    }
    return -1;
  }

  private mapping(first: number, indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    let p = first;
    for (;;) {
      const key = this.key(p);
      if (Object.prototype.hasOwnProperty.call(map, key)) throw BAIL;
      map[key] = this.value(this.after, indent, true);
      const next = this.nextContent(this.pos);
      if (next === -1 || this.ind < indent) return map;
      if (this.ind > indent) throw BAIL;
      // A marker at the margin ends the document (`...`) or starts another (`---`), whatever follows it on the line.
      if (indent === 0 && (this.isMarker(next, '---') || this.isMarker(next, '...'))) throw BAIL;
      p = next + indent;
      if (this.isSeqIndicator(p)) throw BAIL;
    }
  }

  private sequence(first: number, indent: number): unknown[] {
    const items: unknown[] = [];
    let p = first;
    for (;;) {
      let q = p + 1;
      while (this.s.charCodeAt(q) === SPACE) q += 1;
      const column = indent + (q - p);
      if (this.isSeqIndicator(q)) items.push(this.sequence(q, column));
      else if (this.isKey(q)) items.push(this.mapping(q, column));
      else items.push(this.value(q, indent, false));
      const next = this.nextContent(this.pos);
      if (next === -1 || this.ind < indent) return items;
      if (this.ind > indent) throw BAIL;
      p = next + indent;
      if (!this.isSeqIndicator(p)) return items;
    }
  }

  /** A value starting at or after `p` on the current line (after `key:` or `- `). */
  private value(p: number, parentIndent: number, inMapping: boolean): unknown {
    const s = this.s;
    let q = p;
    while (s.charCodeAt(q) === SPACE) q += 1;
    const c = s.charCodeAt(q);
    if (q >= s.length || c === NL || c === HASH) {
      this.pos = lineAfter(s, q);
      return this.indentedNode(parentIndent, inMapping);
    }
    if (c === 0x22 || c === 0x27) {
      const value = this.quoted(q, c, parentIndent);
      this.finishLine(this.after);
      return value;
    }
    if (c === 0x7c || c === 0x3e) return this.blockScalar(q, parentIndent);
    if (c === 0x5b || c === 0x7b) return this.flow(q, parentIndent);
    if (VALUE_START_BAIL.has(c)) throw BAIL;
    // `-`, `?` and `:` start a plain scalar only when a non-space follows (else: entry, key or value indicator).
    if ((c === 0x2d || c === 0x3f || c === 0x3a) && isBlank(s.charCodeAt(q + 1), q + 1 >= s.length)) throw BAIL;
    return this.plain(q, parentIndent);
  }

  /** The node on the lines after an empty value: a nested collection, or null. */
  private indentedNode(parentIndent: number, inMapping: boolean): unknown {
    const next = this.nextContent(this.pos);
    if (next === -1) return null;
    const at = next + this.ind;
    if (this.ind > parentIndent) {
      return this.isSeqIndicator(at) ? this.sequence(at, this.ind) : this.mapping(at, this.ind);
    }
    // `key:` followed by `- item` at the key's own indentation is a sequence value (YAML allows it for mappings).
    if (inMapping && this.ind === parentIndent && this.isSeqIndicator(at)) return this.sequence(at, this.ind);
    return null;
  }

  /** An implicit key at `p` and its `:`; leaves `after` just past the colon. */
  private key(p: number): string {
    const s = this.s;
    const c = s.charCodeAt(p);
    let key: string;
    let colon: number;
    if (c === 0x22 || c === 0x27) {
      const end = c === 0x22 ? doubleQuoteEnd(s, p) : singleQuoteEnd(s, p);
      const inner = s.slice(p + 1, end);
      if (inner.indexOf('\n') !== -1) throw BAIL;
      key = c === 0x22 ? doubleQuotedValue(inner) : singleQuotedValue(inner);
      colon = end + 1;
      if (s.charCodeAt(colon) !== 0x3a) throw BAIL;
    } else {
      if (LINE_START_BAIL.has(c)) throw BAIL;
      colon = this.plainKeyColon(p);
      key = s.slice(p, colon);
      if (s.charCodeAt(colon - 1) === SPACE || key.indexOf(' #') !== -1 || !isStringPlain(key)) throw BAIL;
    }
    const n = s.charCodeAt(colon + 1);
    if (colon + 1 < s.length && n !== SPACE && n !== NL) throw BAIL;
    if (colon - p > 1000 || key === '__proto__' || key === '<<') throw BAIL;
    this.after = colon + 1;
    return key;
  }

  /** The first `:` on this line followed by a space or line end; BAIL when there is none. */
  private plainKeyColon(p: number): number {
    const colon = scanLine(this.s, p).colon;
    if (colon === -1) throw BAIL;
    return colon;
  }

  /** Whether a sequence item's content at `p` is an implicit key (a compact mapping). */
  private isKey(p: number): boolean {
    const s = this.s;
    const c = s.charCodeAt(p);
    if (c === 0x22 || c === 0x27) {
      const end = c === 0x22 ? doubleQuoteEnd(s, p) : singleQuoteEnd(s, p);
      if (s.charCodeAt(end + 1) !== 0x3a) return false;
      const n = s.charCodeAt(end + 2);
      return end + 2 >= s.length || n === SPACE || n === NL;
    }
    if (c === 0x5b || c === 0x7b || c === 0x7c || c === 0x3e || c === HASH || c === NL || p >= s.length) return false;
    return scanLine(s, p).colon !== -1;
  }

  private isSeqIndicator(p: number): boolean {
    if (this.s.charCodeAt(p) !== 0x2d) return false;
    const n = this.s.charCodeAt(p + 1);
    return p + 1 >= this.s.length || n === SPACE || n === NL;
  }

  private isMarker(p: number, marker: string): boolean {
    const n = this.s.charCodeAt(p + 3);
    return this.s.startsWith(marker, p) && (p + 3 >= this.s.length || n === SPACE || n === NL);
  }

  /** After a complete value on this line: only spaces and a comment may follow. */
  private finishLine(p: number): void {
    this.pos = restOfLine(this.s, p);
  }

  private flow(p: number, parentIndent: number): unknown {
    const parser = new FlowParser(this.s, p, parentIndent);
    const value = parser.value();
    this.finishLine(parser.i);
    return value;
  }

  private quoted(p: number, quote: number, parentIndent: number): string {
    const s = this.s;
    const end = quote === 0x22 ? doubleQuoteEnd(s, p) : singleQuoteEnd(s, p);
    const inner = s.slice(p + 1, end);
    if (inner.indexOf('\n') !== -1) this.checkContinuation(p, end, parentIndent);
    this.after = end + 1;
    return quote === 0x22 ? doubleQuotedValue(inner) : singleQuotedValue(inner);
  }

  /** Every non-blank line a multi-line quoted scalar continues on must be indented deeper than its block. */
  private checkContinuation(from: number, to: number, parentIndent: number): void {
    const s = this.s;
    for (let nl = s.indexOf('\n', from); nl !== -1 && nl < to; nl = s.indexOf('\n', nl + 1)) {
      let q = nl + 1;
      while (s.charCodeAt(q) === SPACE) q += 1;
      if (q <= to && s.charCodeAt(q) !== NL && q - nl - 1 <= parentIndent) throw BAIL;
    }
  }

  private plain(p: number, parentIndent: number): unknown {
    const s = this.s;
    const line = scanLine(s, p);
    if (line.colon !== -1) throw BAIL;
    if (line.comment !== -1) {
      this.pos = lineAfter(s, line.eol);
      return resolvePlain(s.slice(p, line.end));
    }
    const last = this.plainContinuation(line.end, line.eol, parentIndent);
    this.pos = lineAfter(s, last);
    return resolvePlain(last === line.end ? s.slice(p, line.end) : unfoldLines(s.slice(p, last)));
  }

  /** Follows a plain scalar over more-indented lines; returns the end of its last non-space character. */
  private plainContinuation(firstEnd: number, eol: number, parentIndent: number): number {
    const s = this.s;
    let last = firstEnd;
    let lineStart = eol + 1;
    while (lineStart < s.length) {
      let q = lineStart;
      while (s.charCodeAt(q) === SPACE) q += 1;
      if (q >= s.length) break;
      if (s.charCodeAt(q) === NL) {
        lineStart = q + 1;
        continue;
      }
      if (q - lineStart <= parentIndent) break;
      // In block context a continuation line may start with any indicator but `#`, which would open a comment.
      if (s.charCodeAt(q) === HASH) throw BAIL;
      const line = scanLine(s, q);
      if (line.comment !== -1 || line.colon !== -1) throw BAIL;
      last = line.end;
      lineStart = line.eol + 1;
    }
    return last;
  }

  private blockScalar(p: number, parentIndent: number): string {
    const scalar = readBlockScalar(this.s, p, parentIndent);
    this.pos = scalar.next;
    return scalar.value;
  }
}
