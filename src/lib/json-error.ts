/** Where a text stops being JSON, and what is there: a message a person can act on. */
export interface JsonError {
  readonly offset: number;
  readonly reason: string;
}

type Expect = 'value' | 'member-value' | 'value-or-end' | 'name' | 'name-or-end' | 'colon' | 'comma-or-end' | 'done';

/**
 * The first place `text` is not JSON (RFC 8259), undefined when it all is. For the message of a file JSON.parse
 * refused: Node 20's V8 gives no position for the commonest slips (a single-quoted string, a trailing comma in an
 * array) and quotes the text around them. A loop over a stack of open containers, so nesting costs no recursion.
 */
export function firstJsonError(text: string): JsonError | undefined {
  const open: ('object' | 'array')[] = [];
  let expect: Expect = 'value';
  // A trailing comma is reported where it is, not at the bracket after it (perhaps lines below).
  let lastComma = 0;
  const closed = (): Expect => (open.length === 0 ? 'done' : 'comma-or-end');
  for (let i = skipSpace(text, 0); ; i = skipSpace(text, i)) {
    if (i >= text.length) return expect === 'done' ? undefined : { offset: text.length, reason: 'the text ends before the JSON does' };
    const c = text.charCodeAt(i);
    if (c === 0x2f || c === 0x23) return { offset: i, reason: 'a comment' };
    const naming: boolean = expect === 'name' || expect === 'name-or-end';
    switch (expect) {
      case 'done':
        return { offset: i, reason: 'more text after the JSON value' };
      case 'colon':
        if (c !== 0x3a) return { offset: i, reason: "no ':' after a member's name" };
        i++;
        expect = 'member-value';
        continue;
      case 'comma-or-end': {
        const object = open.at(-1) === 'object';
        if (c === 0x2c) {
          lastComma = i;
          i++;
          expect = object ? 'name' : 'value';
        } else if (c === (object ? 0x7d : 0x5d)) {
          open.pop();
          i++;
          expect = closed();
        } else {
          return { offset: i, reason: object ? "no ',' or '}' after a member" : "no ',' or ']' after an item" };
        }
        continue;
      }
      case 'name':
      case 'name-or-end':
        if (c === 0x7d && expect === 'name-or-end') {
          open.pop();
          i++;
          expect = closed();
          continue;
        }
        if (c === 0x7d) return { offset: lastComma, reason: 'a trailing comma' };
        if (c !== 0x22) return { offset: i, reason: c === 0x27 ? 'a single-quoted name' : 'a name not in double quotes' };
        break;
      default:
        if (c === 0x5d && expect === 'value-or-end') {
          open.pop();
          i++;
          expect = closed();
          continue;
        }
        if (c === 0x7b || c === 0x5b) {
          open.push(c === 0x7b ? 'object' : 'array');
          i++;
          expect = c === 0x7b ? 'name-or-end' : 'value-or-end';
          continue;
        }
        if (c === 0x5d || c === 0x7d) {
          if (expect === 'member-value') return { offset: i, reason: "no value after ':'" };
          // Right after a comma (`value` is only expected there inside an array), the array's own end is that comma's fault.
          if (expect === 'value' && c === 0x5d && open.at(-1) === 'array') return { offset: lastComma, reason: 'a trailing comma' };
          return { offset: i, reason: `'${text[i]}' where a value starts` };
        }
    }
    const end = scalarEnd(text, i);
    if (typeof end !== 'number') return end;
    i = end;
    expect = naming ? 'colon' : closed();
  }
}

function skipSpace(text: string, from: number): number {
  let i = from;
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i));
  return i;
}

/** The end of the string, number or literal at `i`, or why there is none. */
function scalarEnd(text: string, i: number): number | JsonError {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x27) return { offset: i, reason: 'a single-quoted string' };
  if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return numberEnd(text, i);
  for (const literal of ['true', 'false', 'null']) {
    if (text.startsWith(literal, i)) return i + literal.length;
  }
  return { offset: i, reason: 'a value not in JSON (a string needs double quotes)' };
}

const ESCAPED = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

function stringEnd(text: string, start: number): number | JsonError {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return { offset: i, reason: 'a line break or control character inside a string (write it as \\n, \\t, …)' };
    if (c !== 0x5c) continue;
    const next = text[i + 1] ?? '';
    if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 5;
    else if (ESCAPED.has(next)) i += 1;
    else return { offset: i, reason: 'an escape JSON does not have' };
  }
  return { offset: start, reason: 'a string never closed' };
}

/** `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` */
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

function numberEnd(text: string, i: number): number | JsonError {
  NUMBER.lastIndex = i;
  const match = NUMBER.exec(text);
  const end = match === null ? i : i + match[0].length;
  // A number's last digit must end it: `01`, `1.`, `1e`, `-` are not numbers.
  if (match === null || /[0-9.eE+-]/.test(text[end] ?? '')) return { offset: i, reason: 'a number JSON does not have' };
  return end;
}
