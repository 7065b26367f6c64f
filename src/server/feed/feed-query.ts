import type { ConstraintViolation } from '../../schema/error-envelope.js';
import {
  DEFAULT_EVENTS_WINDOW_MS,
  EVENT_TYPES,
  MAX_EVENTS_TIMEFRAME_MS,
  RELATIVE_TIMES,
  type RelativeTime,
} from '../../schema/events.js';
import { HttpError } from '../http/http-error.js';
import { decodeCursor, type CursorState } from './cursor.js';
import type { IndexFilter } from './index-query.js';
import { excerpt } from '../../lib/quoted.js';

/** A list-events request after the query rules: a first page, or a continuation from a cursor. */
export type FeedRequest = { readonly kind: 'first'; readonly filter: IndexFilter } | { readonly kind: 'next'; readonly state: CursorState };

const KNOWN_TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
const DIGITS = /^[0-9]{1,16}$/;
/** Entity ids are short (`HOST-0123456789ABCDEF`); the bound keeps every cursor well under its own size limit. */
const MAX_ENTITY_ID_LENGTH = 500;

/**
 * Applies the list-events rules to a query string. With a cursor every other parameter is ignored (the cursor
 * carries them). Otherwise: `from` defaults to 30 days before now (or to now − relativeTime), `to` to now; explicit
 * `from`/`to` win over `relativeTime` for their end of the window. Every rule broken is one QUERY violation.
 */
export function parseFeedQuery(query: URLSearchParams, now: number, cursorKey: Buffer, env: string): FeedRequest {
  const cursor = value(query, 'cursor');
  if (cursor !== undefined) return { kind: 'next', state: decodeCursor(cursor, cursorKey, env) };
  const violations: ConstraintViolation[] = [];
  const fail = (path: string, message: string): void => {
    violations.push({ path, message, parameterLocation: 'QUERY', location: null });
  };
  const relative = parseRelativeTime(value(query, 'relativeTime'), fail);
  const from = parseTime(query, 'from', fail) ?? now - (relative ?? DEFAULT_EVENTS_WINDOW_MS);
  const to = parseTime(query, 'to', fail) ?? now;
  const eventType = value(query, 'eventType');
  if (eventType !== undefined && !KNOWN_TYPES.has(eventType)) {
    fail('eventType', `Unknown event type '${excerpt(eventType)}': use one of the event types listed for the events API.`);
  }
  const entityId = value(query, 'entityId');
  if (entityId !== undefined && entityId.length > MAX_ENTITY_ID_LENGTH) {
    fail('entityId', `The entity id is longer than ${MAX_ENTITY_ID_LENGTH} characters.`);
  }
  if (violations.length === 0 && from > to) fail('from', `from (${from}) is after to (${to}).`);
  if (violations.length === 0 && to - from > MAX_EVENTS_TIMEFRAME_MS) {
    fail('from', `The timeframe from ${from} to ${to} exceeds 2 years (${MAX_EVENTS_TIMEFRAME_MS} ms): query shorter windows.`);
  }
  if (violations.length > 0) throw HttpError.constraints(violations);
  return { kind: 'first', filter: { from, to, eventType, entityId } };
}

/** An empty parameter counts as absent ("empty on the first query"). */
function value(query: URLSearchParams, name: string): string | undefined {
  const raw = query.get(name);
  return raw === null || raw === '' ? undefined : raw;
}

function parseTime(query: URLSearchParams, name: string, fail: (path: string, message: string) => void): number | undefined {
  const raw = value(query, name);
  if (raw === undefined) return undefined;
  const parsed = Number(raw);
  if (!DIGITS.test(raw) || !Number.isSafeInteger(parsed)) {
    fail(name, `'${excerpt(raw)}' is not a timestamp: give UTC milliseconds since the epoch, e.g. 1521042929000.`);
    return undefined;
  }
  return parsed;
}

function parseRelativeTime(raw: string | undefined, fail: (path: string, message: string) => void): number | undefined {
  if (raw === undefined) return undefined;
  if (Object.hasOwn(RELATIVE_TIMES, raw)) return RELATIVE_TIMES[raw as RelativeTime];
  fail('relativeTime', `Unknown relativeTime '${excerpt(raw)}': use one of ${Object.keys(RELATIVE_TIMES).join(', ')}.`);
  return undefined;
}
