/**
 * An iterative JSON syntax check that runs on the text before any object is built. It enforces what JSON.parse and
 * the schema cannot be trusted with: a nesting limit (recursive validators and JSON.stringify overflow the stack
 * around 20k levels) and a ban on prototype-polluting member names (`__proto__`, `constructor`, `prototype`) at
 * any depth, including escaped spellings such as `"__pro\u0074o__"`. When it accepts, JSON.parse cannot fail.
 */

import { MAX_VIOLATIONS } from '../../schema/error-envelope.js';

export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const PATH_KEY_CHARS = 100;

export type JsonScanResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly kind: 'syntax' | 'depth'; readonly offset: number; readonly message: string }
  /** `paths` of the first MAX_VIOLATIONS forbidden members (what a 400 lists), `count` of all of them. */
  | { readonly ok: false; readonly kind: 'forbidden-key'; readonly paths: readonly string[]; readonly count: number };

interface Frame {
  readonly array: boolean;
  key: string;
  index: number;
}

class ScanError extends Error {
  constructor(
    readonly kind: 'syntax' | 'depth',
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

export function scanJson(text: string, maxDepth: number): JsonScanResult {
  const scanner = new Scanner(text, maxDepth);
  try {
    scanner.run();
  } catch (error) {
    if (error instanceof ScanError) return { ok: false, kind: error.kind, offset: error.offset, message: error.message };
    throw error;
  }
  return scanner.forbiddenCount > 0 ? { ok: false, kind: 'forbidden-key', paths: scanner.forbidden, count: scanner.forbiddenCount } : { ok: true };
}

/** 1-based line and column of a character offset, for messages a person can act on. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

class Scanner {
  private pos = 0;
  private readonly stack: Frame[] = [];
  readonly forbidden: string[] = [];
  forbiddenCount = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  run(): void {
    this.skipWs();
    this.value();
    for (;;) {
      this.skipWs();
      const top = this.stack[this.stack.length - 1];
      if (!top) break;
      this.afterMember(top);
    }
    if (this.pos < this.text.length) this.fail('Unexpected content after the end of the JSON value');
  }

  /** After a value inside a container: `,` continues it, the closing bracket pops it. */
  private afterMember(top: Frame): void {
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x2c) {
      this.pos += 1;
      this.skipWs();
      if (top.array) top.index += 1;
      else this.key(top);
      this.value();
    } else if (c === (top.array ? 0x5d : 0x7d)) {
      this.pos += 1;
      this.stack.pop();
    } else {
      this.fail(top.array ? "Expected ',' or ']' after an array element" : "Expected ',' or '}' after an object member");
    }
  }

  /** Reads one value; containers are opened (pushed) rather than recursed into. */
  private value(): void {
    this.skipWs();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b || c === 0x5b) {
      this.open(c === 0x5b);
    } else if (c === 0x22) {
      this.string();
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.number();
    } else {
      this.literal();
    }
  }

  private open(array: boolean): void {
    if (this.stack.length >= this.maxDepth) {
      throw new ScanError('depth', this.pos, `Nesting deeper than ${this.maxDepth} levels`);
    }
    this.pos += 1;
    const frame: Frame = { array, key: '', index: 0 };
    this.skipWs();
    const close = array ? 0x5d : 0x7d;
    if (this.text.charCodeAt(this.pos) === close) {
      this.pos += 1;
      return;
    }
    this.stack.push(frame);
    if (!array) this.key(frame);
    this.value();
  }

  private key(frame: Frame): void {
    if (this.text.charCodeAt(this.pos) !== 0x22) this.fail('Expected a double-quoted member name');
    frame.key = this.string();
    if (FORBIDDEN_KEYS.has(frame.key)) {
      // Only the paths a 400 lists are built: each is as long as the nesting, and a body may hold 70,000 such members.
      if (this.forbiddenCount < MAX_VIOLATIONS) this.forbidden.push(this.path());
      this.forbiddenCount += 1;
    }
    this.skipWs();
    if (this.text.charCodeAt(this.pos) !== 0x3a) this.fail("Expected ':' after a member name");
    this.pos += 1;
  }

  /** Returns the decoded string (only escaped strings are decoded, and only with JSON.parse of that one token). */
  private string(): string {
    const start = this.pos;
    let escaped = false;
    this.pos += 1;
    for (;;) {
      const c = this.text.charCodeAt(this.pos);
      if (Number.isNaN(c)) this.fail('Unterminated string', start);
      if (c === 0x22) break;
      if (c < 0x20) this.fail('Control character in a string');
      if (c === 0x5c) {
        escaped = true;
        this.escape();
      } else {
        this.pos += 1;
      }
    }
    this.pos += 1;
    const raw = this.text.slice(start, this.pos);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  private escape(): void {
    const next = this.text[this.pos + 1];
    if (next === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.fail('Invalid \\u escape');
      this.pos += 6;
    } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
      this.pos += 2;
    } else {
      this.fail('Invalid escape in a string');
    }
  }

  private number(): void {
    NUMBER.lastIndex = this.pos;
    const found = NUMBER.exec(this.text);
    if (!found) this.fail('Invalid number');
    const token = found[0];
    // 1e999 parses to Infinity and would be stored as null: a silent change of the caller's data.
    if (!Number.isFinite(Number(token))) this.fail('Number out of range');
    this.pos += token.length;
  }

  private literal(): void {
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    this.fail(this.pos >= this.text.length ? 'Unexpected end of input' : 'Unexpected character');
  }

  private skipWs(): void {
    while (WS.has(this.text.charCodeAt(this.pos))) this.pos += 1;
  }

  /**
   * Where the member is, each member name cut to PATH_KEY_CHARS: the path goes back in the 400 once per forbidden
   * member, and a 937 kB body of one long name above a hundred `__proto__` members drew a 50 MB answer.
   */
  private path(): string {
    let out = '';
    for (const frame of this.stack) {
      const key = frame.key.length > PATH_KEY_CHARS ? `${frame.key.slice(0, PATH_KEY_CHARS)}…` : frame.key;
      if (frame.array) out += `[${frame.index}]`;
      else out += out === '' ? key : `.${key}`;
    }
    return out;
  }

  private fail(message: string, offset = this.pos): never {
    throw new ScanError('syntax', offset, message);
  }
}
