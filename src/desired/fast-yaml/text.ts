import { BAIL } from './scalars.js';

/** Character codes and line helpers shared by the fast parser's modules. */
export const NL = 10;
export const SPACE = 32;
export const HASH = 0x23;

export function isBlank(c: number, atEnd: boolean): boolean {
  return atEnd || c === SPACE || c === NL;
}

export function lineEnd(s: string, p: number): number {
  const nl = s.indexOf('\n', p);
  return nl === -1 ? s.length : nl;
}

export function lineAfter(s: string, p: number): number {
  const nl = s.indexOf('\n', p);
  return nl === -1 ? s.length : nl + 1;
}

export function countBreaks(s: string, from: number, to: number): number {
  let count = 0;
  for (let i = s.indexOf('\n', from); i !== -1 && i < to; i = s.indexOf('\n', i + 1)) count += 1;
  return count;
}

/** After a complete node on a line: only spaces and a ` #` comment may follow. Returns the next line's start. */
export function restOfLine(s: string, p: number): number {
  let q = p;
  while (s.charCodeAt(q) === SPACE) q += 1;
  if (q < s.length && s.charCodeAt(q) !== NL && (s.charCodeAt(q) !== HASH || q === p)) throw BAIL;
  return lineAfter(s, q);
}

export interface LineScan {
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
export function scanLine(s: string, p: number): LineScan {
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
