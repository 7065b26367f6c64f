import { BACKSLASH, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE, skipJsonSpace, SPACE } from './json-chars.js';
import { JsonScanError } from './json-split.js';

/**
 * One validating pass over a JSON "page": an object with an array member whose items are wanted as raw text (so
 * numbers the JS Number type cannot hold survive byte for byte), and a few members of the page and of each item,
 * decoded. The whole text is checked as JSON.parse checks it (RFC 8259), but no value is built for anything else:
 * JSON.parse of a page allocates every nested value of every item for a handful to be read. Nesting is tracked on an
 * explicit stack, so no depth of input can overflow the JS stack.
 */

/** Text that JSON.parse would refuse. A SyntaxError, as JSON.parse's. */
export class JsonSyntaxError extends SyntaxError {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonSyntaxError';
  }
}

/** What to take from a page. Names are compared as JSON.parse decodes them (`"\u0069d"` is `id`). */
export interface PageShape {
  /** Members of the page to decode. */
  readonly members: readonly string[];
  /** The member whose array is split into raw items. */
  readonly items: string;
  /** Members of each item object to decode. */
  readonly itemMembers: readonly string[];
  /** Members of each item object to take as raw text: the value's bytes as written. */
  readonly itemTexts: readonly string[];
}

export interface ScannedPage {
  /**
   * The shape's page members present in the text, decoded as JSON.parse does (of a repeated name, the last value).
   * The items member is here too: `items` when its value is an array, else its decoded value.
   */
  readonly members: Record<string, unknown>;
  /** The items member's items when its (last) value is an array. */
  readonly items: ScannedItem[] | undefined;
}

export interface ScannedItem {
  /** The item's text as written, from its first character to its last. */
  readonly text: string;
  /**
   * For an object item, the value of each member the shape names, in the order `[...itemMembers, ...itemTexts]`
   * (undefined when absent); undefined for any other item. An array rather than a record: storing names that vary
   * into a new object per item cost a tenth of the scan.
   */
  readonly values: unknown[] | undefined;
}

/**
 * Scans `text` and returns what `shape` names. Throws JsonSyntaxError where JSON.parse would throw, and JsonScanError
 * when the text is JSON but not an object.
 */
export function scanJsonPage(text: string, shape: PageShape): ScannedPage {
  return new PageScan(text, shape).run();
}

const PLUS = 0x2b;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const NINE = 0x39;
const UPPER_E = 0x45;
const LOWER_B = 0x62;
const LOWER_E = 0x65;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_R = 0x72;
const LOWER_T = 0x74;
const LOWER_U = 0x75;
/**
 * A run without the raw control characters a JSON string may not hold. Matching the run from a position finds the
 * next one twice as fast as searching for one (`/[\u0000-\u001f]/g`), which starts a match at every character.
 */
const NO_CONTROL = /[^\u0000-\u001f]*/y;
const HEX_DIGIT = /^[0-9a-fA-F]{4}$/;
/** The depths at which members are picked: the page's own, and an item object's (page → items array → item). */
const PAGE_DEPTH = 1;
const ITEMS_DEPTH = 2;
const ITEM_DEPTH = 3;

class PageScan {
  /** The open containers, innermost last: the code of each one's opening bracket. */
  private readonly stack: number[] = [];
  private readonly members: Record<string, unknown> = {};
  private readonly pageNames: NameTable;
  private readonly itemNames: NameTable;
  private items: ScannedItem[] | undefined;
  /** Whether the values at ITEMS_DEPTH are items: inside the items member's array. */
  private inItems = false;
  private itemStart = 0;
  private itemValues: unknown[] | undefined;
  /** What itemValues starts as: one undefined per name. */
  private readonly noValues: readonly unknown[];
  /** The member whose value is being read, to be recorded when it ends at `pickDepth` (-1: none). */
  private pickDepth = -1;
  private pickStart = 0;
  /** Its index in pageNames or itemNames (by pickDepth). */
  private pickIndex = 0;
  /** Whether the last string read holds an escape. */
  // Stryker disable next-line BooleanLiteral: equivalent, every string read sets it before it is read.
  private escaped = false;
  /** The first control character at or after where one was last looked for (-1: not looked for yet). */
  private control = -1;
  /** Where the next backslash or control character may be: a string that ends before it holds neither. */
  private plainUntil = 0;

  constructor(
    private readonly text: string,
    private readonly shape: PageShape,
  ) {
    this.pageNames = nameTable([shape.items, ...shape.members]);
    this.itemNames = nameTable([...shape.itemMembers, ...shape.itemTexts]);
    this.noValues = this.itemNames.list.map(() => undefined);
  }

  run(): ScannedPage {
    const { text, stack } = this;
    const start = skipJsonSpace(text, 0);
    let i = start;
    /** Whether a member name and its colon come before the value at i. */
    let named = false;
    for (;;) {
      if (named) {
        if (text.charCodeAt(i) !== QUOTE) throw new JsonSyntaxError('expected a member name', i);
        const nameEnd = this.string(i);
        let colon = nameEnd;
        // Whitespace is skipped only after a look at the next character: most often there is none (every character
        // JSON allows after whitespace is above the space), and a call per token cost a tenth of the scan.
        // Stryker disable next-line ConditionalExpression: equivalent, speed only (skipJsonSpace returns a non-space where it is).
        if (text.charCodeAt(colon) <= SPACE) colon = skipJsonSpace(text, colon);
        if (text.charCodeAt(colon) !== COLON) throw new JsonSyntaxError('expected ":"', colon);
        let value = colon + 1;
        // Stryker disable next-line ConditionalExpression: equivalent, speed only.
        if (text.charCodeAt(value) <= SPACE) value = skipJsonSpace(text, value);
        if (stack.length === PAGE_DEPTH) this.pageMember(this.nameIndex(this.pageNames, i, nameEnd), value);
        else if (stack.length === ITEM_DEPTH && this.inItems) this.itemMember(this.nameIndex(this.itemNames, i, nameEnd), value);
        i = value;
      }
      // A value starts at i.
      if (stack.length === ITEMS_DEPTH && this.inItems) this.itemStarts(i);
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        i = this.string(i);
      } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
        stack.push(code);
        i++;
        // Stryker disable next-line ConditionalExpression: equivalent, speed only.
        if (text.charCodeAt(i) <= SPACE) i = skipJsonSpace(text, i);
        // In ASCII each closing bracket is two after its opening one.
        if (text.charCodeAt(i) !== code + 2) {
          named = code === OPEN_BRACE;
          continue;
        }
        stack.pop();
        i++;
      } else {
        i = this.scalar(i, code);
      }
      // A value ends at i; so may the containers around it.
      for (;;) {
        // Stryker disable next-line ConditionalExpression: equivalent, speed only (nothing is read deeper than an item's members).
        if (stack.length <= ITEM_DEPTH) this.valueEnds(i);
        // Stryker disable next-line ConditionalExpression: equivalent, speed only.
        if (text.charCodeAt(i) <= SPACE) i = skipJsonSpace(text, i);
        const open = stack[stack.length - 1];
        if (open === undefined) return this.result(start, i);
        const next = text.charCodeAt(i);
        if (next === COMMA) {
          i++;
          // Stryker disable next-line ConditionalExpression: equivalent, speed only.
          if (text.charCodeAt(i) <= SPACE) i = skipJsonSpace(text, i);
          named = open === OPEN_BRACE;
          break;
        }
        if (next !== open + 2) throw new JsonSyntaxError(open === OPEN_BRACE ? 'expected "," or "}"' : 'expected "," or "]"', i);
        stack.pop();
        i++;
      }
    }
  }

  private result(start: number, end: number): ScannedPage {
    if (end !== this.text.length) throw new JsonSyntaxError('unexpected text after the value', end);
    if (this.text.charCodeAt(start) !== OPEN_BRACE) throw new JsonScanError('expected an object', start);
    return { members: this.members, items: this.items };
  }

  private pageMember(index: number, value: number): void {
    this.pickDepth = -1;
    if (index === 0 && this.text.charCodeAt(value) === OPEN_BRACKET) {
      this.items = [];
      this.members[this.shape.items] = this.items;
      this.inItems = true;
    } else if (index >= 0) {
      if (index === 0) this.items = undefined;
      this.pick(index, PAGE_DEPTH, value);
    }
  }

  private itemMember(index: number, value: number): void {
    this.pickDepth = -1;
    if (index >= 0) this.pick(index, ITEM_DEPTH, value);
  }

  private pick(index: number, depth: number, start: number): void {
    this.pickIndex = index;
    this.pickDepth = depth;
    this.pickStart = start;
  }

  /** The index in `names` of the member name whose quotes are at `start` and `end - 1`; -1 when it is none of them. */
  private nameIndex(names: NameTable, start: number, end: number): number {
    // Stryker disable next-line ConditionalExpression: equivalent, speed only (a name without escapes decodes to its text).
    if (this.escaped) return names.list.indexOf(JSON.parse(this.text.slice(start, end)) as string);
    const length = end - start - 2;
    if (length >= names.byLength.length) return -1;
    for (const k of names.byLength[length] as readonly number[]) {
      if (this.text.startsWith(names.list[k] as string, start + 1)) return k;
    }
    return -1;
  }

  private itemStarts(i: number): void {
    this.itemStart = i;
    this.itemValues = this.text.charCodeAt(i) === OPEN_BRACE ? this.noValues.slice() : undefined;
  }

  private valueEnds(end: number): void {
    const depth = this.stack.length;
    if (depth === this.pickDepth) {
      this.pickDepth = -1;
      const { pickIndex: index, pickStart: start } = this;
      if (depth === PAGE_DEPTH) this.members[this.pageNames.list[index] as string] = this.decoded(start, end);
      else (this.itemValues as unknown[])[index] = index < this.shape.itemMembers.length ? this.decoded(start, end) : this.text.slice(start, end);
    } else if (depth === ITEMS_DEPTH && this.inItems) {
      (this.items as ScannedItem[]).push({ text: this.text.slice(this.itemStart, end), values: this.itemValues });
    } else if (depth === PAGE_DEPTH) {
      this.inItems = false;
    }
  }

  /** The value at [start, end), already checked; a string value is the last string read. */
  private decoded(start: number, end: number): unknown {
    const text = this.text;
    const code = text.charCodeAt(start);
    // The two shortcuts are speed only: JSON.parse below reads these values the same (Number reads a JSON number as
    // JSON.parse does, and in the page's numbers it saved a tenth of the scan).
    // Stryker disable next-line ConditionalExpression: equivalent, speed only.
    if (code === QUOTE && !this.escaped) return text.slice(start + 1, end - 1);
    // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: equivalent, speed only.
    if (code === MINUS || (code >= ZERO && code <= NINE)) return Number(text.slice(start, end));
    // A literal, a string with escapes, an object or an array: small, and already checked.
    return JSON.parse(text.slice(start, end));
  }

  /** Index just past the number or literal at `i`, whose first character is `code`. */
  private scalar(i: number, code: number): number {
    if (code === MINUS || (code >= ZERO && code <= NINE)) return this.number(i);
    const text = this.text;
    if (text.startsWith('true', i)) return i + 4;
    if (text.startsWith('false', i)) return i + 5;
    if (text.startsWith('null', i)) return i + 4;
    throw new JsonSyntaxError(i < text.length ? 'unexpected character' : 'unexpected end of text', i);
  }

  /** Index just past the string whose opening quote is at `start`. */
  private string(start: number): number {
    const quote = this.text.indexOf('"', start + 1);
    // Stryker disable next-line BooleanLiteral: equivalent, speed only (an escaped string is decoded by JSON.parse).
    this.escaped = false;
    // No backslash and no control character before the quote: the next of each, as last found, lies beyond it.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, speed only (the other path checks it all; the quote is never where a backslash or control character is).
    if (quote !== -1 && quote < this.plainUntil) return quote + 1;
    return this.escapedString(start, quote);
  }

  /** string(), when the quote at `quote` may be escaped or a backslash or control character may come first. */
  private escapedString(start: number, quote: number): number {
    const text = this.text;
    // Stryker disable next-line ArithmeticOperator: equivalent, the characters before an opening quote are no backslash.
    let backslash = text.indexOf('\\', start + 1);
    // Stryker disable next-line EqualityOperator: equivalent, a quote is never where a backslash is.
    while (backslash !== -1 && backslash < quote) {
      this.escaped = true;
      const from = this.escape(backslash);
      // The quote found is looked for again only when the escape was it.
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, speed only (the same quote is found again).
      if (quote < from) quote = text.indexOf('"', from);
      backslash = text.indexOf('\\', from);
    }
    if (quote === -1) throw new JsonSyntaxError('unterminated string', start);
    // Most characters are inside strings: one native search finds the next control character for many of them.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, speed only (searched again, the same one is found; the opening quote is no control character).
    if (this.control <= start) {
      NO_CONTROL.lastIndex = start + 1;
      NO_CONTROL.test(text);
      this.control = NO_CONTROL.lastIndex;
    }
    // Stryker disable next-line EqualityOperator: equivalent, a quote is never where a control character is.
    if (this.control < quote) throw new JsonSyntaxError('control character in a string', this.control);
    // Stryker disable next-line ConditionalExpression,UnaryOperator: equivalent, speed only (-1: no string is taken as plain; the next backslash lies past the quote, so never at 1).
    this.plainUntil = Math.min(backslash === -1 ? text.length : backslash, this.control);
    return quote + 1;
  }

  /** Index just past the escape whose backslash is at `at`. */
  private escape(at: number): number {
    const code = this.text.charCodeAt(at + 1);
    if (code === QUOTE || code === BACKSLASH || code === SLASH || code === LOWER_B || code === LOWER_F || code === LOWER_N || code === LOWER_R || code === LOWER_T) {
      return at + 2;
    }
    if (code === LOWER_U && HEX_DIGIT.test(this.text.slice(at + 2, at + 6))) return at + 6;
    throw new JsonSyntaxError('bad escape', at);
  }

  /** Index just past the number starting at `start`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
  private number(start: number): number {
    const text = this.text;
    let i = text.charCodeAt(start) === MINUS ? start + 1 : start;
    if (text.charCodeAt(i) === ZERO) i++;
    else i = this.digits(i);
    if (text.charCodeAt(i) === DOT) i = this.digits(i + 1);
    const code = text.charCodeAt(i);
    if (code === LOWER_E || code === UPPER_E) {
      const sign = text.charCodeAt(i + 1);
      i = this.digits(sign === PLUS || sign === MINUS ? i + 2 : i + 1);
    }
    return i;
  }

  /** Index just past the run of at least one digit at `i`. */
  private digits(i: number): number {
    const text = this.text;
    const first = i;
    for (let code = text.charCodeAt(i); code >= ZERO && code <= NINE; code = text.charCodeAt(i)) i++;
    if (i === first) throw new JsonSyntaxError('bad number', i);
    return i;
  }
}

/** Names to look for, and their indexes by length: most member names are none of them, and are told so at once. */
interface NameTable {
  readonly list: readonly string[];
  readonly byLength: ReadonlyArray<readonly number[]>;
}

function nameTable(list: readonly string[]): NameTable {
  const indexes = list.map((_, index) => index);
  const longest = Math.max(0, ...list.map((name) => name.length));
  return { list, byLength: Array.from({ length: longest + 1 }, (_, length) => indexes.filter((index) => (list[index] as string).length === length)) };
}
