/** Character codes of JSON's structure, and its whitespace, shared by the scanners (json-split, json-page-scan). */

export const TAB = 0x09;
export const LF = 0x0a;
export const CR = 0x0d;
export const SPACE = 0x20;
export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_BRACKET = 0x5b;
export const BACKSLASH = 0x5c;
export const CLOSE_BRACKET = 0x5d;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;

/** JSON's whitespace (RFC 8259): space, tab, line feed, carriage return; nothing else, not even U+00A0. */
export function isJsonSpace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

/** Index of the first character at or after `i` that is not JSON whitespace (the text's length if none is). */
export function skipJsonSpace(text: string, i: number): number {
  while (isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}
