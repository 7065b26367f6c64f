import { randomBytes } from 'node:crypto';
import { ENCODED_EVENT_ID, EVENT_ID_DIGITS } from '../../schema/events.js';

/**
 * Event ids are signed 64-bit integers, mostly beyond JS safe integers. They live as canonical decimal text (in the
 * event texts and on the wire) or as two 32-bit words (in the index); they are never a JS number.
 */
export interface EventIdWords {
  /** Upper 32 bits, signed: comparing (hi, lo) as (signed, unsigned) orders ids as int64. */
  readonly hi: number;
  readonly lo: number;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Canonical decimal → words; undefined when not a canonical int64. */
export function parseEventIdDigits(digits: string): EventIdWords | undefined {
  if (!EVENT_ID_DIGITS.test(digits)) return undefined;
  const value = BigInt(digits);
  if (value < INT64_MIN || value > INT64_MAX) return undefined;
  return wordsOf(value);
}

export function wordsOf(value: bigint): EventIdWords {
  const unsigned = BigInt.asUintN(64, value);
  return { hi: Number(unsigned >> 32n) | 0, lo: Number(unsigned & 0xffffffffn) };
}

export function digitsOf(hi: number, lo: number): string {
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo >>> 0)).toString();
}

export interface EncodedEventId {
  readonly eventId: string;
  readonly startTime: number;
  readonly words: EventIdWords;
}

/** Parses `<eventId>_<startTime>`; undefined unless both parts are canonical and in range. */
export function parseEncodedEventId(id: string): EncodedEventId | undefined {
  const match = ENCODED_EVENT_ID.exec(id);
  if (!match) return undefined;
  const eventId = match[1] ?? '';
  const startTime = Number(match[2]);
  const words = parseEventIdDigits(eventId);
  if (!words || !Number.isSafeInteger(startTime)) return undefined;
  return { eventId, startTime, words };
}

/** A fresh random event id, as the real service's: any int64, negative half the time. */
export function newEventId(random: () => Buffer = () => randomBytes(8)): string {
  return BigInt.asIntN(64, random().readBigUInt64BE(0)).toString();
}

/**
 * JSON text for a value where some members must be written as raw int64 digits. `bigint` values are written as
 * their decimal digits (JSON.stringify refuses bigint), everything else as JSON.stringify writes it.
 */
export function stringifyWithBigInts(value: unknown): string {
  const marked = new Map<string, string>();
  // A random nonce keeps a caller's own string from ever being mistaken for a placeholder.
  const nonce = randomBytes(6).toString('hex');
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== 'bigint') return item;
    const token = `\u0000${nonce}:${marked.size}\u0000`;
    marked.set(JSON.stringify(token), item.toString());
    return token;
  });
  // Stryker disable next-line ConditionalExpression: speed-only shortcut; without bigints the replace below finds no placeholder.
  if (marked.size === 0) return text;
  return text.replace(/"\\u0000[0-9a-f]+:\d+\\u0000"/g, (token) => marked.get(token) ?? token);
}
