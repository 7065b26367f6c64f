import { BAIL, blockScalarValue, type BlockLine } from './scalars.js';
import { countBreaks, lineAfter, lineEnd, NL, restOfLine, SPACE } from './text.js';

interface ScalarLines {
  lines: BlockLine[];
  trimIndent: number;
  /** End of the last content line (its line break). */
  contentEnd: number;
  /** Start of the first line that is not the scalar's (or the end of input). */
  next: number;
}

/**
 * A `|` or `>` block scalar starting at `p` (the indicator), inside a collection indented `parentIndent`. Returns
 * its value and the start of the line after its last content line.
 */
export function readBlockScalar(s: string, p: number, parentIndent: number): { value: string; next: number } {
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
  const start = restOfLine(s, q);
  // An indentation indicator counts from the enclosing collection's indentation, as `yaml` does.
  const body = scalarLines(s, start, parentIndent, explicit === 0 ? -1 : Math.max(parentIndent, 0) + explicit);
  const next = body.lines.length === 0 ? start : lineAfter(s, body.contentEnd);
  if (chomp !== 0x2b) return { value: blockScalarValue(body.lines, body.trimIndent, folded, chomp === 0x2d), next };
  // Keep chomping: every line break after the last content line, up to the next content, belongs to the value.
  if (body.lines.length === 0) return { value: '\n'.repeat(countBreaks(s, start, body.next)), next };
  const value = blockScalarValue(body.lines, body.trimIndent, folded, true);
  return { value: value + '\n'.repeat(Math.max(1, countBreaks(s, body.contentEnd, body.next))), next };
}

function scalarLines(s: string, start: number, parentIndent: number, fixedIndent: number): ScalarLines {
  const lines: BlockLine[] = [];
  let trimIndent = fixedIndent;
  let lineStart = start;
  let contentEnd = start;
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
  return { lines: last === -1 ? [] : lines.slice(0, last + 1), trimIndent, contentEnd, next };
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
