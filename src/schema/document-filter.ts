/**
 * The Document service's list filter (`GET /documents?filter=…`), parsed to a tree. The grammar, from the public
 * docs and what Monaco and Terraform send:
 *
 *   expr       := and ('or' and)*
 *   and        := unary ('and' unary)*
 *   unary      := 'not' unary | '(' expr ')' | condition
 *   condition  := field ( ('=' | '==' | '!=' | '<' | '<=' | '>' | '>=') value
 *                       | ('contains' | 'starts-with' | 'ends-with') string
 *                       | 'in' '(' value (',' value)* ')'
 *                       | 'exists' )
 *   value      := 'single-quoted string' | number
 *
 * Keywords are case-insensitive; inside a string `\'` is a quote and `\\` a backslash. Parentheses nest at most 3
 * deep and a filter is at most 1024 characters, as the service documents. A field outside FILTER_FIELDS is an error.
 */

export const FILTER_MAX_LENGTH = 1024;
export const FILTER_MAX_NESTING = 3;

export const FILTER_FIELDS = [
  'id',
  'name',
  'type',
  'version',
  'owner',
  'modificationInfo.createdTime',
  'modificationInfo.createdBy',
  'modificationInfo.lastModifiedTime',
  'modificationInfo.lastModifiedBy',
  'originAppId',
  'originExtensionId',
] as const;
export type FilterField = (typeof FILTER_FIELDS)[number];

export type CompareOp = '=' | '!=' | '<' | '<=' | '>' | '>=';
export type TextOp = 'contains' | 'starts-with' | 'ends-with';
export type FilterValue = string | number;

export type FilterNode =
  | { readonly kind: 'and' | 'or'; readonly left: FilterNode; readonly right: FilterNode }
  | { readonly kind: 'not'; readonly operand: FilterNode }
  | { readonly kind: 'compare'; readonly field: FilterField; readonly op: CompareOp; readonly value: FilterValue }
  | { readonly kind: 'text'; readonly field: FilterField; readonly op: TextOp; readonly value: string }
  | { readonly kind: 'in'; readonly field: FilterField; readonly values: readonly FilterValue[] }
  | { readonly kind: 'exists'; readonly field: FilterField };

/** A filter the grammar does not accept; the message names what and where (a 400 for the caller). */
export class FilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilterError';
  }
}

type Token =
  | { readonly kind: 'word'; readonly text: string; readonly at: number }
  | { readonly kind: 'string'; readonly text: string; readonly at: number }
  | { readonly kind: 'number'; readonly value: number; readonly text: string; readonly at: number }
  | { readonly kind: 'symbol'; readonly text: string; readonly at: number };

const SYMBOLS = ['==', '!=', '<=', '>=', '=', '<', '>', '(', ')', ','];
const WORD = /[A-Za-z_][A-Za-z0-9_.-]*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?![A-Za-z0-9_.-])/y;

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at] as string;
    if (/\s/.test(char)) {
      at += 1;
      continue;
    }
    if (char === "'") {
      const { value, end } = readString(text, at);
      tokens.push({ kind: 'string', text: value, at });
      at = end;
      continue;
    }
    const symbol = SYMBOLS.find((candidate) => text.startsWith(candidate, at));
    if (symbol) {
      tokens.push({ kind: 'symbol', text: symbol, at });
      at += symbol.length;
      continue;
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (number) {
      tokens.push({ kind: 'number', value: Number(number[0]), text: number[0], at });
      at += number[0].length;
      continue;
    }
    WORD.lastIndex = at;
    const word = WORD.exec(text);
    if (!word) throw new FilterError(`Unexpected character '${char}' at position ${at} of the filter.`);
    tokens.push({ kind: 'word', text: word[0], at });
    at += word[0].length;
  }
  return tokens;
}

function readString(text: string, start: number): { value: string; end: number } {
  let value = '';
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at] as string;
    if (char === "'") return { value, end: at + 1 };
    if (char === '\\' && (text[at + 1] === "'" || text[at + 1] === '\\')) {
      value += text[at + 1];
      at += 1;
    } else {
      value += char;
    }
  }
  throw new FilterError(`The string starting at position ${start} of the filter is not closed with a single quote.`);
}

const COMPARE_OPS: Readonly<Record<string, CompareOp>> = { '=': '=', '==': '=', '!=': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
const TEXT_OPS: ReadonlySet<string> = new Set(['contains', 'starts-with', 'ends-with']);
const KNOWN_FIELDS: ReadonlySet<string> = new Set(FILTER_FIELDS);

/** Parses a filter; throws FilterError for anything the grammar does not accept. */
export function parseFilter(text: string): FilterNode {
  if (text.length > FILTER_MAX_LENGTH) throw new FilterError(`The filter is ${text.length} characters long; at most ${FILTER_MAX_LENGTH} are allowed.`);
  const parser = new Parser(tokenize(text));
  const node = parser.expression(0);
  parser.end();
  return node;
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  expression(depth: number): FilterNode {
    let node = this.conjunction(depth);
    while (this.keyword('or')) node = { kind: 'or', left: node, right: this.conjunction(depth) };
    return node;
  }

  end(): void {
    const extra = this.tokens[this.at];
    if (extra) throw new FilterError(`Unexpected '${extra.text}' at position ${extra.at} of the filter.`);
  }

  private conjunction(depth: number): FilterNode {
    let node = this.unary(depth);
    while (this.keyword('and')) node = { kind: 'and', left: node, right: this.unary(depth) };
    return node;
  }

  private unary(depth: number): FilterNode {
    if (this.keyword('not')) return { kind: 'not', operand: this.unary(depth) };
    if (this.symbol('(')) {
      if (depth + 1 > FILTER_MAX_NESTING) throw new FilterError(`Parentheses nest at most ${FILTER_MAX_NESTING} deep in a filter.`);
      const inner = this.expression(depth + 1);
      this.expectSymbol(')');
      return inner;
    }
    return this.condition();
  }

  private condition(): FilterNode {
    const token = this.next('a field name');
    if (token.kind !== 'word') throw new FilterError(`Expected a field name at position ${token.at} of the filter, found '${token.text}'.`);
    const field = fieldOf(token);
    const operator = this.next(`an operator after '${field}'`);
    if (operator.kind === 'symbol' && operator.text in COMPARE_OPS) {
      return { kind: 'compare', field, op: COMPARE_OPS[operator.text] as CompareOp, value: this.value() };
    }
    const word = operator.kind === 'word' ? operator.text.toLowerCase() : '';
    if (TEXT_OPS.has(word)) {
      const value = this.value();
      if (typeof value !== 'string') throw new FilterError(`'${word}' needs a single-quoted string, at position ${operator.at} of the filter.`);
      return { kind: 'text', field, op: word as TextOp, value };
    }
    if (word === 'exists') return { kind: 'exists', field };
    if (word === 'in') return { kind: 'in', field, values: this.list() };
    throw new FilterError(`Expected an operator after '${field}' at position ${operator.at} of the filter, found '${operator.text}'.`);
  }

  private list(): FilterValue[] {
    this.expectSymbol('(');
    const values = [this.value()];
    while (this.symbol(',')) values.push(this.value());
    this.expectSymbol(')');
    return values;
  }

  private value(): FilterValue {
    const token = this.next('a value');
    if (token.kind === 'string') return token.text;
    if (token.kind === 'number') return token.value;
    throw new FilterError(`Expected a single-quoted string or a number at position ${token.at} of the filter, found '${token.text}'.`);
  }

  private next(expected: string): Token {
    const token = this.tokens[this.at];
    if (!token) throw new FilterError(`The filter ends where ${expected} was expected.`);
    this.at += 1;
    return token;
  }

  private keyword(word: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind !== 'word' || token.text.toLowerCase() !== word) return false;
    this.at += 1;
    return true;
  }

  private symbol(text: string): boolean {
    const token = this.tokens[this.at];
    if (token?.kind !== 'symbol' || token.text !== text) return false;
    this.at += 1;
    return true;
  }

  private expectSymbol(text: string): void {
    const token = this.next(`'${text}'`);
    if (token.kind !== 'symbol' || token.text !== text) throw new FilterError(`Expected '${text}' at position ${token.at} of the filter, found '${token.text}'.`);
  }
}

function fieldOf(token: Token): FilterField {
  if (KNOWN_FIELDS.has(token.text)) return token.text as FilterField;
  throw new FilterError(`Unknown field '${token.text}' in the filter; the fields are ${FILTER_FIELDS.join(', ')}.`);
}
