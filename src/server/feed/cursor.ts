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
  return `${body}.${mac(key, env, body).toString('base64url')}`;
}

/** The state of a cursor this server issued, or a 400 for anything else (malformed, tampered, another env's). */
export function decodeCursor(cursor: string, key: Buffer, env: string): CursorState {
  const [body, signature, extra] = cursor.split('.');
  if (cursor.length > MAX_CURSOR_LENGTH || !body || !signature || extra !== undefined) throw invalidCursor();
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
  return {
    filter: { from: parsed.f, to: parsed.t, eventType: parsed.y, entityId: parsed.e },
    watermark: parsed.w,
    total: parsed.n,
    after: { start: parsed.s, hi: words.hi, lo: words.lo },
  };
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
