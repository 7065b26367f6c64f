import { doubleQuoteEnd, FlowParser, singleQuoteEnd } from './flow.js';
import {
  BAIL,
  blockScalarValue,
  doubleQuotedValue,
  isStringPlain,
  resolvePlain,
  singleQuotedValue,
  unfoldLines,
  type BlockLine,
} from './scalars.js';

const NL = 10;
const SPACE = 32;
const HASH = 0x23;

/** First characters of a value the fast path leaves to `yaml` (anchors, aliases, tags, directives, reserved…). */
const VALUE_START_BAIL = new Set('&*!%@`,]}'.split('').map((c) => c.charCodeAt(0)));
/** First characters of a plain key the fast path leaves to `yaml`. */
const LINE_START_BAIL = new Set('#-?:,[]{}&*!|>\'"%@`'.split('').map((c) => c.charCodeAt(0)));

/**
 * Block-style YAML: mappings, sequences (compact forms included), plain/quoted/literal/folded scalars and flow
 * collections, over the subset whose value is certain. `pos` is always the start of the next line to read; `ind` is
 * the indentation of the line `nextContent` found.
 */
export class BlockParser {
  private pos = 0;
  private ind = 0;
  private after = 0;

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

  /** From a line start, skips blank and comment lines; returns the next content line's start or -1. */
  private nextContent(from: number): number {
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
    const s = this.s;
    let q = p;
    while (s.charCodeAt(q) === SPACE) q += 1;
    if (q < s.length && s.charCodeAt(q) !== NL && (s.charCodeAt(q) !== HASH || q === p)) throw BAIL;
    this.pos = lineAfter(s, q);
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
    const s = this.s;
    const folded = s.charCodeAt(p) === 0x3e;
    let q = p + 1;
    let chomp = 0;
    let explicit = 0;
    for (let c = s.charCodeAt(q); ; c = s.charCodeAt(++q)) {
      if ((c === 0x2d || c === 0x2b) && chomp === 0) chomp = c;
      else if (c > 0x30 && c <= 0x39 && explicit === 0) explicit = c - 0x30;
      else break;
    }
    const n = s.charCodeAt(q);
    if (q < s.length && n !== SPACE && n !== NL) throw BAIL;
    this.finishLine(q);
    // An indentation indicator counts from the enclosing collection's indentation, as `yaml` does.
    const body = this.blockScalarLines(parentIndent, explicit === 0 ? -1 : Math.max(parentIndent, 0) + explicit);
    if (chomp !== 0x2b) return blockScalarValue(body.lines, body.trimIndent, folded, chomp === 0x2d);
    // Keep chomping: every line break after the last content line, up to the next content, belongs to the value.
    if (body.lines.length === 0) return '\n'.repeat(countBreaks(s, this.pos, body.next));
    const value = blockScalarValue(body.lines, body.trimIndent, folded, true);
    return value + '\n'.repeat(Math.max(1, countBreaks(s, body.contentEnd, body.next)));
  }

  /** The lines of a block scalar from `pos`; leaves `pos` at the line after its last content line. */
  private blockScalarLines(
    parentIndent: number,
    fixedIndent: number,
  ): { lines: BlockLine[]; trimIndent: number; contentEnd: number; next: number } {
    const s = this.s;
    const lines: BlockLine[] = [];
    let trimIndent = fixedIndent;
    let lineStart = this.pos;
    let contentEnd = this.pos;
    let last = -1;
    while (lineStart < s.length) {
      let r = lineStart;
      while (s.charCodeAt(r) === SPACE) r += 1;
      const indent = r - lineStart;
      const eol = lineEnd(s, r);
      if (r < eol) {
        if (indent <= parentIndent || (trimIndent !== -1 && indent < trimIndent)) break;
        if (trimIndent === -1) trimIndent = indent;
        last = lines.length;
        contentEnd = eol;
      }
      lines.push({ indent, content: s.slice(r, eol) });
      lineStart = eol + 1;
    }
    // A last line of only spaces without a line break: the lexer's extent there is not worth mirroring.
    if (lineStart > s.length && (lines[lines.length - 1] as BlockLine).content === '') throw BAIL;
    checkBlankLines(lines, last, trimIndent, fixedIndent !== -1);
    const next = Math.min(lineStart, s.length);
    if (last === -1) return { lines: [], trimIndent, contentEnd, next };
    this.pos = lineAfter(s, contentEnd);
    return { lines: lines.slice(0, last + 1), trimIndent, contentEnd, next };
  }
}

/**
 * Blank lines indented deeper than the content where `yaml` reports an error (leading ones, without an explicit
 * indentation indicator) or where its lexer and composer decide together what belongs to the value (trailing
 * ones): left to `yaml`. In an empty scalar their spaces do not matter.
 */
function checkBlankLines(lines: readonly BlockLine[], last: number, trimIndent: number, explicit: boolean): void {
  if (last === -1) return;
  const first = lines.findIndex((line) => line.content !== '');
  for (let i = 0; i < lines.length; i++) {
    const { indent, content } = lines[i] as BlockLine;
    if (content === '' && indent > trimIndent && (i > last || (i < first && !explicit))) throw BAIL;
  }
}

function countBreaks(s: string, from: number, to: number): number {
  let count = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) count += 1;
  return count;
}

function isBlank(c: number, atEnd: boolean): boolean {
  return atEnd || c === SPACE || c === NL;
}

function lineEnd(s: string, p: number): number {
  const nl = s.indexOf('\n', p);
  return nl === -1 ? s.length : nl;
}

function lineAfter(s: string, p: number): number {
  const nl = s.indexOf('\n', p);
  return nl === -1 ? s.length : nl + 1;
}

function trimEnd(s: string, start: number, end: number): number {
  let e = end;
  while (e > start && s.charCodeAt(e - 1) === SPACE) e -= 1;
  return e;
}

interface LineScan {
  /** The line break (or the end of input). */
  eol: number;
  /** End of the text before any comment, trailing spaces trimmed. */
  end: number;
  /** Start of a ` #` comment, or -1. */
  comment: number;
  /** The first `:` followed by a space or the line end (an implicit-key indicator), or -1. */
  colon: number;
}

/** One pass over a line of plain text from `p`: where it ends, where a comment starts, where a key's `:` is. */
function scanLine(s: string, p: number): LineScan {
  let i = p;
  let end = p;
  let colon = -1;
  let comment = -1;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === NL) break;
    if (c === SPACE) {
      if (s.charCodeAt(i + 1) === HASH) {
        comment = i;
        break;
      }
      continue;
    }
    if (c === 0x3a && colon === -1) {
      const n = s.charCodeAt(i + 1);
      if (i + 1 >= s.length || n === SPACE || n === NL) colon = i;
    }
    end = i + 1;
  }
  return { eol: comment === -1 ? i : lineEnd(s, i), end, comment, colon };
}
