import type { EventFields } from './event-fields.js';
import { NameCache } from './name-cache.js';

/**
 * The fast path of a restart: reads the index fields from the fixed prefix that encodeEvent writes,
 * `{"id":"<eventId>_<start>","eventId":<eventId>,"startTime":<start>[,"endTime":<end>],"eventType":"…"[,"entityId":"…"]`,
 * straight from the bytes — no JSON.parse, no BigInt, no strings but the two names (each decoded once: NameCache).
 * About 1 µs a line, so a million events index in about a second. Anything off the layout (or a string with an
 * escape) returns undefined and the caller parses the line in full.
 */
export function scanCanonicalPrefix(buf: Buffer, start: number, end: number): EventFields | undefined {
  let p = expect(buf, start, end, K_ID);
  const idDigits = p;
  p = readInt64(buf, p, end);
  if (p < 0) return undefined;
  const { hi, lo } = scratch;
  const idDigitsEnd = p;
  if (buf[p] !== UNDERSCORE) return undefined;
  const startDigits = p + 1;
  p = readTime(buf, startDigits, end);
  if (p < 0) return undefined;
  const startTime = scratch.time;
  const startDigitsEnd = p;
  p = expect(buf, p, end, K_EVENT_ID);
  p = sameBytes(buf, p, end, idDigits, idDigitsEnd);
  p = expect(buf, p, end, K_START);
  p = sameBytes(buf, p, end, startDigits, startDigitsEnd);
  if (p < 0) return undefined;
  let endTime: number | undefined;
  if (at(buf, p, end, K_END)) {
    p = readTime(buf, p + K_END.length, end);
    if (p < 0 || scratch.time < startTime) return undefined;
    endTime = scratch.time;
  }
  p = readPlainString(buf, expect(buf, p, end, K_TYPE), end);
  if (p < 0 || scratch.text === '') return undefined;
  const eventType = scratch.text;
  let entityId: string | undefined;
  if (at(buf, p, end, K_ENTITY)) {
    p = readPlainString(buf, p + K_ENTITY.length, end);
    if (p < 0) return undefined;
    entityId = scratch.text;
  }
  if (buf[p] !== COMMA && buf[p] !== CLOSE_BRACE) return undefined;
  return { hi, lo, startTime, endTime, eventType, entityId };
}

const UNDERSCORE = 0x5f;
const MINUS = 0x2d;
const ZERO = 0x30;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
const K_ID = Buffer.from('{"id":"');
const K_EVENT_ID = Buffer.from('","eventId":');
const K_START = Buffer.from(',"startTime":');
const K_END = Buffer.from(',"endTime":');
const K_TYPE = Buffer.from(',"eventType":"');
const K_ENTITY = Buffer.from(',"entityId":"');
const TWO_32 = 0x100000000;
const TWO_31 = 0x80000000;
const EXACT_DIGITS = 15;

/** Results of the readers below; a module-level scratch keeps the per-line path free of allocations. */
const scratch = { hi: 0, lo: 0, time: 0, text: '' };
/** Event types and entity ids, decoded once each rather than once a line. */
const names = new NameCache();

function at(buf: Buffer, p: number, end: number, literal: Buffer): boolean {
  if (p < 0 || p + literal.length > end) return false;
  for (let i = 0; i < literal.length; i++) if (buf[p + i] !== literal[i]) return false;
  return true;
}

/** Position after `literal` at `p`, or -1 (and -1 stays -1, so steps chain). */
function expect(buf: Buffer, p: number, end: number, literal: Buffer): number {
  return at(buf, p, end, literal) ? p + literal.length : -1;
}

/** Position after a copy of bytes from..to at `p`, or -1. */
function sameBytes(buf: Buffer, p: number, end: number, from: number, to: number): number {
  if (p < 0 || p + (to - from) > end) return -1;
  for (let i = from; i < to; i++) if (buf[p + i - from] !== buf[i]) return -1;
  const next = buf[p + to - from] ?? 0;
  return next >= ZERO && next <= ZERO + 9 ? -1 : p + to - from;
}

/** Canonical int64 digits → scratch.hi/lo (two's complement words), using exact float arithmetic on 32-bit limbs. */
function readInt64(buf: Buffer, p: number, end: number): number {
  const negative = buf[p] === MINUS;
  if (negative) p++;
  const first = p;
  // Up to 15 digits are exact in one double (< 2^53); only the rest need the limbs' division per digit.
  let exact = 0;
  for (; p < end && p - first < EXACT_DIGITS; p++) {
    const digit = (buf[p] ?? 0) - ZERO;
    if (digit < 0 || digit > 9) break;
    exact = exact * 10 + digit;
  }
  let hi = Math.floor(exact / TWO_32);
  let lo = exact - hi * TWO_32;
  for (; p < end; p++) {
    const digit = (buf[p] ?? 0) - ZERO;
    if (digit < 0 || digit > 9) break;
    if (p - first >= 19) return -1;
    lo = lo * 10 + digit;
    const carry = Math.floor(lo / TWO_32);
    lo -= carry * TWO_32;
    hi = hi * 10 + carry;
  }
  const length = p - first;
  if (length === 0 || (length > 1 && buf[first] === ZERO) || (negative && length === 1 && buf[first] === ZERO)) return -1;
  if (negative ? hi > TWO_31 || (hi === TWO_31 && lo > 0) : hi >= TWO_31) return -1;
  if (negative) {
    hi = lo === 0 ? TWO_32 - hi : TWO_32 - hi - 1;
    lo = lo === 0 ? 0 : TWO_32 - lo;
  }
  scratch.hi = hi | 0;
  scratch.lo = lo >>> 0;
  return p;
}

/** Canonical non-negative safe-integer digits → scratch.time. */
function readTime(buf: Buffer, p: number, end: number): number {
  const first = p;
  let value = 0;
  for (; p < end; p++) {
    const digit = (buf[p] ?? 0) - ZERO;
    if (digit < 0 || digit > 9) break;
    value = value * 10 + digit;
  }
  const length = p - first;
  if (length === 0 || length > 16 || (length > 1 && buf[first] === ZERO) || !Number.isSafeInteger(value)) return -1;
  scratch.time = value;
  return p;
}

/** A string body up to its closing quote → scratch.text; -1 when it holds an escape (the slow path decodes it). */
function readPlainString(buf: Buffer, p: number, end: number): number {
  if (p < 0) return -1;
  for (let i = p; i < end; i++) {
    const byte = buf[i];
    if (byte === QUOTE) {
      scratch.text = names.textOf(buf, p, i);
      return i + 1;
    }
    if (byte === BACKSLASH) return -1;
  }
  return -1;
}
