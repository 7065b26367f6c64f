import { FORBIDDEN_KEYS } from './json-guard.js';

/**
 * Where the members of an object lie in its JSON text, for a text that is exactly what JSON.stringify writes for the
 * value it parses to: a slice of the text is then the member's serialisation, and nothing need be stringified again.
 */
export interface TextLayout {
  readonly members: readonly TextMember[];
}

/** A canonical text with its layout: all a store needs to keep the value it parses to without serialising it. */
export interface CanonicalText {
  readonly text: string;
  readonly layout: TextLayout;
}

export interface TextMember {
  /** The member name's opening quote. */
  readonly start: number;
  /** The `:` after the name. */
  readonly colon: number;
  /** One past the value. */
  readonly end: number;
  /** A non-empty array value's elements, each as [start, end) offsets; undefined for any other value. */
  readonly elements: ReadonlyArray<readonly [number, number]> | undefined;
}

/**
 * The verdict of one pass over a JSON text. `plain`: no nesting beyond the limit, no number that could overflow to
 * Infinity, no string that could name a forbidden member (no `\u` escape, no string spelled `__proto__`,
 * `constructor` or `prototype`) — JSON.parse alone may read it. `layout`: set when the text is also canonical (see
 * {@link TextLayout}) and an object.
 */
export type PlainScan = { readonly plain: false } | { readonly plain: true; readonly layout: TextLayout | undefined };

const NOT_PLAIN: PlainScan = { plain: false };

/**
 * A number is surely finite when its exponent has at most 2 digits and all its digits together (mantissa, fraction
 * and exponent) number fewer than 200: it is then below 10^(198 + 99), far from the double range's 1.8e308. The
 * digits are counted over the whole number token, never per part: a 250-digit mantissa with `e99` overflows although
 * neither part alone looks large.
 */
const MAX_NUMBER_DIGITS = 200;
const MAX_EXPONENT_DIGITS = 2;
const FORBIDDEN_LENGTHS = new Set([...FORBIDDEN_KEYS].map((name) => name.length));
/**
 * Names compared per object for repeats: each new name is compared with the ones before it, so an object of more
 * gives up the layout (it is serialised again) rather than cost time that grows with the square of its size (a 1 MB
 * body of 3-letter names would take seconds). A dashboard's largest objects have a few dozen members.
 */
export const MAX_LAID_OUT_NAMES = 64;

interface OpenMember {
  start: number;
  colon: number;
  /** Where the element being read starts, and the ones read; for an array value only. */
  elementStart: number;
  elements: Array<readonly [number, number]> | undefined;
}

/**
 * Canonical: JSON.stringify(JSON.parse(text)) === text. The layout is given only when that surely holds: the text is
 * an object with no whitespace outside strings, spells every number as JavaScript prints it, escapes nothing
 * JSON.stringify would not (`\/`; a `\u` escape already makes the text not plain), repeats no member name within an
 * object (JSON.parse keeps the last), has no member name starting with a digit (an array-index name moves to the front
 * of its object) and no object of more than MAX_LAID_OUT_NAMES members. Some canonical texts are refused (`{"0a":1}`):
 * they are serialised again, which gives the same bytes.
 */
export function scanPlainJson(text: string, maxDepth: number): PlainScan {
  let depth = 0;
  let numberDigits = 0;
  let exponentDigits = -1; // -1: not inside an exponent
  let numberStart = -1; // -1: not inside a number
  let canonical = text.charCodeAt(0) === 0x7b;
  const members: TextMember[] = [];
  let member: OpenMember | undefined;
  /** Per depth (index depth - 1): the names of the object open there, as [start, end) pairs; undefined for an array. */
  const names: Array<number[] | undefined> = [];
  /** The first backslash at or after where it was last looked for; text.length when there is none. */
  let backslash = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (numberStart === -1) numberStart = i;
      if (exponentDigits >= 0) exponentDigits++;
      if (++numberDigits >= MAX_NUMBER_DIGITS || exponentDigits > MAX_EXPONENT_DIGITS) return NOT_PLAIN;
      continue;
    }
    // `-` starts a number or its exponent's sign; `.` and `+` never end one; `e`/`E` starts its exponent (outside
    // numbers it only occurs in true/false, followed by a reset). Over-counting across invalid text is harmless:
    // JSON.parse refuses it.
    if (c === 0x2d) {
      if (numberStart === -1) numberStart = i;
      continue;
    }
    if (c === 0x2e || c === 0x2b) continue;
    if (c === 0x65 || c === 0x45) {
      exponentDigits = 0;
      continue;
    }
    if (numberStart !== -1) {
      canonical &&= canonicalNumber(text, numberStart, i);
      numberStart = -1;
    }
    numberDigits = 0;
    exponentDigits = -1;
    if (c === 0x22) {
      // Most of a dashboard's characters are inside strings: native searches skip them (a 17 KB bench body: 45 → 34 µs
      // per scan; JSON.parse of it takes 50).
      let from = i + 1;
      let end = text.indexOf('"', from);
      for (;;) {
        if (end === -1) return NOT_PLAIN;
        if (backslash < from) {
          const found = text.indexOf('\\', from);
          backslash = found === -1 ? text.length : found;
        }
        if (backslash > end) break;
        const escaped = text.charCodeAt(backslash + 1);
        if (escaped === 0x75) return NOT_PLAIN;
        // JSON.stringify writes `/` as it is.
        if (escaped === 0x2f) canonical = false;
        from = backslash + 2;
        // The quote found is searched for again only when this escape was it: a string of many escapes stays one
        // pass, where searching again after each escape cost its length times their number.
        if (end < from) end = text.indexOf('"', from);
      }
      if (FORBIDDEN_LENGTHS.has(end - i - 1) && FORBIDDEN_KEYS.has(text.slice(i + 1, end))) return NOT_PLAIN;
      const own = names[depth - 1];
      if (canonical && own && text.charCodeAt(end + 1) === 0x3a) {
        const first = text.charCodeAt(i + 1);
        if ((first >= 0x30 && first <= 0x39) || own.length >= 2 * MAX_LAID_OUT_NAMES || nameRepeated(text, own, i + 1, end)) canonical = false;
        own.push(i + 1, end);
        if (depth === 1) member = { start: i, colon: end + 1, elementStart: -1, elements: undefined };
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return NOT_PLAIN;
      names[depth - 1] = canonical && c === 0x7b ? [] : undefined;
      if (depth === 2 && c === 0x5b && member) {
        member.elementStart = i + 1;
        member.elements = [];
      }
    } else if (c === 0x7d || c === 0x5d) {
      if (depth === 2 && member?.elements) {
        // `[]` has no element: its value is written as it is.
        if (member.elementStart === i) member.elements = undefined;
        else member.elements.push([member.elementStart, i]);
      }
      depth--;
      if (depth === 0 && member) {
        members.push(closed(member, i));
        member = undefined;
      }
    } else if (c === 0x2c) {
      if (depth === 1 && member) {
        members.push(closed(member, i));
        member = undefined;
      } else if (depth === 2 && member?.elements) {
        member.elements.push([member.elementStart, i]);
        member.elementStart = i + 1;
      }
    } else if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
      canonical = false;
    }
  }
  // A number at the very end is no object's: canonical is false already, or JSON.parse refuses the text.
  return { plain: true, layout: canonical ? { members } : undefined };
}

const closed = ({ start, colon, elements }: OpenMember, end: number): TextMember => ({ start, colon, end, elements });

/** Whether the name at [start, end) equals one already seen in its object (same escapes mean same name here). */
function nameRepeated(text: string, seen: readonly number[], start: number, end: number): boolean {
  const length = end - start;
  for (let k = 0; k < seen.length; k += 2) {
    const from = seen[k] as number;
    if ((seen[k + 1] as number) - from !== length) continue;
    let m = 0;
    while (m < length && text.charCodeAt(from + m) === text.charCodeAt(start + m)) m++;
    if (m === length) return true;
  }
  return false;
}

/** Whether the number token at [start, end) is spelled as JavaScript prints its value. */
function canonicalNumber(text: string, start: number, end: number): boolean {
  // Stryker disable all: speed only; for every token the shortcut accepts, the comparison below says true as well.
  const digitsFrom = text.charCodeAt(start) === 0x2d ? start + 1 : start;
  // Most numbers are short integers without a leading zero (a lone 0 is fine; -0 prints as 0): exact as written.
  if (end - digitsFrom <= 15 && (text.charCodeAt(digitsFrom) !== 0x30 || (end - digitsFrom === 1 && digitsFrom === start))) {
    let k = digitsFrom;
    while (k < end && text.charCodeAt(k) >= 0x30 && text.charCodeAt(k) <= 0x39) k++;
    if (k === end && end > digitsFrom) return true;
  }
  // Stryker restore all
  const token = text.slice(start, end);
  return String(Number(token)) === token;
}
