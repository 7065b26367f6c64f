import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, isJsonSpace, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-chars.js';

/**
 * Splits JSON text into the raw text of its parts without parsing values, so numbers the JS Number type cannot hold
 * (64-bit ids) survive byte for byte. The scanner only tracks strings (with escapes) and bracket depth; each part
 * it returns is still JSON text that the caller may JSON.parse to validate or read.
 */

export class JsonScanError extends Error {
  readonly code = 'JSON_SCAN' as const;
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonScanError';
  }
}


/** Index just past the closing quote of the string whose opening quote is at `start`. */
export function skipString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) throw new JsonScanError('unterminated string', start);
    // A quote is escaped only by an odd run of backslashes right before it.
    let backslashes = 0;
    for (let j = quote - 1; j > start && text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function skipSpace(text: string, i: number, end: number): number {
  while (i < end && isJsonSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Index just past the value starting at `start` (no leading whitespace): a string, an object or array (matched by
 * depth), or a scalar token (number, true, false, null) ending at the next delimiter.
 */
export function skipValue(text: string, start: number, end: number = text.length): number {
  const first = text.charCodeAt(start);
  if (first === QUOTE) return skipString(text, start);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return skipScalar(text, start, end);
  let depth = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) i = skipString(text, i) - 1;
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  throw new JsonScanError('unbalanced brackets', start);
}

function skipScalar(text: string, start: number, end: number): number {
  let i = start;
  while (i < end) {
    const code = text.charCodeAt(i);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || code === COLON || isJsonSpace(code)) break;
    if (code === QUOTE || code === OPEN_BRACE || code === OPEN_BRACKET) break;
    i++;
  }
  if (i === start) throw new JsonScanError('expected a value', start);
  return i;
}

/**
 * The members of the top-level object in `text`, as key → raw value text. Keys are decoded with JSON.parse (they
 * are short); values are left untouched. A repeated key keeps its last value, as JSON.parse does.
 */
export function scanObjectMembers(text: string): Map<string, string> {
  return scanObject(text).members;
}

/** The raw items of the array held by member `key` of the top-level object; `[]` when the member is absent or null. */
export function extractArrayItems(text: string, key: string): string[] {
  return scanObject(text, key).items ?? [];
}

/** The raw text of each item of the JSON array `arrayText` (surrounding whitespace trimmed, nothing else changed). */
export function splitArrayItems(arrayText: string): string[] {
  const items: string[] = [];
  const start = skipSpace(arrayText, 0, arrayText.length);
  if (arrayText.charCodeAt(start) !== OPEN_BRACKET) throw new JsonScanError('expected an array', start);
  return expectEnd(arrayText, splitArrayAt(arrayText, start, arrayText.length, items), items);
}

/**
 * One pass over a top-level object: its members (key → raw value text) and, when `arrayKey` names an array
 * member, that array's raw items, split while it is scanned rather than in a second pass.
 */
export function scanObject(text: string, arrayKey?: string): { members: Map<string, string>; items: string[] | undefined } {
  const members = new Map<string, string>();
  let items: string[] | undefined;
  const end = text.length;
  let i = skipSpace(text, 0, end);
  if (text.charCodeAt(i) !== OPEN_BRACE) throw new JsonScanError('expected an object', i);
  i = skipSpace(text, i + 1, end);
  if (text.charCodeAt(i) === CLOSE_BRACE) return expectEnd(text, i + 1, { members, items });
  for (;;) {
    if (text.charCodeAt(i) !== QUOTE) throw new JsonScanError('expected a member name', i);
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd, end);
    if (text.charCodeAt(i) !== COLON) throw new JsonScanError('expected ":"', i);
    i = skipSpace(text, i + 1, end);
    let valueEnd: number;
    if (key === arrayKey && text.charCodeAt(i) === OPEN_BRACKET) {
      items = [];
      valueEnd = splitArrayAt(text, i, end, items);
    } else {
      valueEnd = skipValue(text, i, end);
      if (key === arrayKey) items = undefined;
    }
    members.set(key, text.slice(i, valueEnd));
    i = skipSpace(text, valueEnd, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_BRACE) return expectEnd(text, i + 1, { members, items });
    if (code !== COMMA) throw new JsonScanError('expected "," or "}"', i);
    i = skipSpace(text, i + 1, end);
  }
}

function expectEnd<T>(text: string, i: number, result: T): T {
  const rest = skipSpace(text, i, text.length);
  if (rest !== text.length) throw new JsonScanError('unexpected text after the value', rest);
  return result;
}

/** Splits the array whose `[` is at `start` into `items`; returns the index just past its `]`. */
function splitArrayAt(text: string, start: number, end: number, items: string[]): number {
  let i = skipSpace(text, start + 1, end);
  if (text.charCodeAt(i) === CLOSE_BRACKET) return i + 1;
  for (;;) {
    const itemEnd = skipValue(text, i, end);
    items.push(text.slice(i, itemEnd));
    i = skipSpace(text, itemEnd, end);
    const code = text.charCodeAt(i);
    if (code === CLOSE_BRACKET) return i + 1;
    if (code !== COMMA) throw new JsonScanError('expected "," or "]"', i);
    i = skipSpace(text, i + 1, end);
  }
}

/**
 * `text` without the whitespace between tokens (whitespace inside strings is kept): the same JSON value on one
 * line, every number and string byte for byte. Text that is already on one line is returned as is.
 */
export function compactJson(text: string): string {
  if (text.indexOf('\n') === -1 && text.indexOf('\r') === -1) return text;
  let out = '';
  let runStart = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = skipString(text, i) - 1;
    } else if (isJsonSpace(code)) {
      out += text.slice(runStart, i);
      runStart = i + 1;
    }
  }
  return out + text.slice(runStart);
}
