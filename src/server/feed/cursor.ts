import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { EVENT_ID_DIGITS } from '../../schema/events.js';
import { HttpError } from '../http/http-error.js';
import { parseEventIdDigits } from './int64.js';
import type { FeedKey, IndexFilter } from './index-query.js';

/**
 * What a cursor carries: the whole query (effective window and filters), the snapshot watermark, the total counted
 * at the first request, and the keyset position (the key of the last event returned) — never an offset.
 */
export interface CursorState {
  readonly filter: IndexFilter;
  readonly watermark: number;
  readonly total: number;
  readonly after: FeedKey;
}

const MAC_BYTES = 16;
const MAX_CURSOR_LENGTH = 4096;

const int = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const Payload = z.object({
  v: z.literal(1),
  f: int,
  t: int,
  y: z.string().optional(),
  e: z.string().optional(),
  w: int,
  n: int,
  s: int,
  i: z.string().regex(EVENT_ID_DIGITS),
});

/** Opaque, URL-safe, authenticated: `<base64url payload>.<base64url HMAC-SHA256/128>`, bound to the environment. */
export function encodeCursor(state: CursorState, key: Buffer, env: string, eventIdDigits: string): string {
  const payload: z.input<typeof Payload> = {
    v: 1,
    f: state.filter.from,
    t: state.filter.to,
    // JSON.stringify leaves out a filter that is undefined.
    y: state.filter.eventType,
    e: state.filter.entityId,
    w: state.watermark,
    n: state.total,
    s: state.after.start,
    i: eventIdDigits,
  };
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  const cursor = `${body}.${mac(key, env, body).toString('base64url')}`;
  const { filter, watermark, total, after } = state;
  remember(key, cursor, env, cursorState(filter.from, filter.to, filter.eventType, filter.entityId, watermark, total, after.start, after));
  return cursor;
}

/**
 * Cursors issued lately, per key: paging brings each one back, and a cursor equal to one signed here needs neither
 * its MAC checked nor its body parsed again (together a tenth of an events page's server CPU). A cursor is no
 * secret of the reader's: the map only spares work, it decides nothing a full check would not. Oldest out first.
 */
const issued = new WeakMap<Buffer, Map<string, { readonly env: string; readonly state: CursorState }>>();
const ISSUED_KEPT = 1024;

function remember(key: Buffer, cursor: string, env: string, state: CursorState): void {
  let book = issued.get(key);
  if (book === undefined) issued.set(key, (book = new Map()));
  if (book.size >= ISSUED_KEPT) book.delete(book.keys().next().value as string);
  book.set(cursor, { env, state });
}

function cursorState(from: number, to: number, eventType: string | undefined, entityId: string | undefined, watermark: number, total: number, start: number, words: { readonly hi: number; readonly lo: number }): CursorState {
  return { filter: { from, to, eventType, entityId }, watermark, total, after: { start, hi: words.hi, lo: words.lo } };
}

/** The state of a cursor this server issued, or a 400 for anything else (malformed, tampered, another env's). */
export function decodeCursor(cursor: string, key: Buffer, env: string): CursorState {
  if (cursor.length > MAX_CURSOR_LENGTH) throw invalidCursor();
  const known = issued.get(key)?.get(cursor);
  if (known !== undefined && known.env === env) return known.state;
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw invalidCursor();
  const given = Buffer.from(signature, 'base64url');
  const expected = mac(key, env, body);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidCursor();
  let parsed: z.infer<typeof Payload>;
  try {
    parsed = Payload.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch {
    throw invalidCursor();
  }
  const words = parseEventIdDigits(parsed.i);
  if (!words) throw invalidCursor();
  return cursorState(parsed.f, parsed.t, parsed.y, parsed.e, parsed.w, parsed.n, parsed.s, words);
}

function mac(key: Buffer, env: string, body: string): Buffer {
  return createHmac('sha256', key).update(`${env}\n${body}`).digest().subarray(0, MAC_BYTES);
}

function invalidCursor(): HttpError {
  return HttpError.queryParameter(
    'cursor',
    'The cursor is not valid: pass the nextCursor of a previous response unchanged, or omit it to start over.',
  );
}
