import { scanObject } from '../lib/json-split.js';
import { EventQueryResult } from '../schema/events.js';
import { archivedEventFromFeed, type ArchivedEvent } from './archived-event.js';
import { ArchiveError } from './archive-error.js';

/**
 * The paging members, checked with the shared EventQueryResult schema. The events are only required to be an
 * array: each is read by eventViewOf, since running zod over every event would cost more than the rest of a pull.
 */
const PageMeta = EventQueryResult.pick({ nextCursor: true, totalEventCount: true, from: true, to: true });

export interface FeedPage {
  readonly events: ArchivedEvent[];
  readonly nextCursor: string | undefined;
  readonly totalEventCount: number | undefined;
}

/**
 * Reads one EventQueryResult from its raw text. JSON.parse validates the whole page and supplies the fields the
 * archive reads; one scan of the text supplies each event's raw text, which is what gets written, so 64-bit
 * `eventId`s are never turned into (rounded) numbers.
 */
export function parseFeedPage(text: string): FeedPage {
  let parsed: unknown;
  let items: string[];
  try {
    parsed = JSON.parse(text);
    items = scanObject(text, 'events').items ?? [];
  } catch (error) {
    // JSON.parse throws only SyntaxError and the scanner only JsonScanError: either way the text is not a page.
    throw new ArchiveError('BAD_PAGE', `the feed answered malformed JSON (${(error as Error).message})`, { cause: error });
  }
  // scanObject only accepts an object, so `parsed` is one.
  const fields = parsed as Record<string, unknown>;
  const page = PageMeta.safeParse({ nextCursor: fields.nextCursor, totalEventCount: fields.totalEventCount, from: fields.from, to: fields.to });
  const parsedEvents = fields.events ?? [];
  if (!page.success || !Array.isArray(parsedEvents)) {
    throw new ArchiveError('BAD_PAGE', `the feed answered an unexpected page: ${page.error?.issues[0]?.message ?? 'events is not an array'}`);
  }
  // Stryker disable next-line ConditionalExpression,StringLiteral: unreachable while the scanner and JSON.parse agree; this guards against a scanner bug.
  if (parsedEvents.length !== items.length) throw new ArchiveError('BAD_PAGE', 'the events of the page could not be split reliably');
  const events = items.map((item, index) => {
    try {
      return archivedEventFromFeed(item, parsedEvents[index]);
    } catch (error) {
      throw new ArchiveError('BAD_PAGE', `event ${index} of the page: ${(error as Error).message}`, { cause: error });
    }
  });
  return {
    events,
    nextCursor: page.data.nextCursor || undefined,
    totalEventCount: page.data.totalEventCount,
  };
}

export interface WindowQuery {
  readonly from: number;
  readonly to: number;
  readonly eventType?: string | undefined;
  readonly entityId?: string | undefined;
}

/** Query of the first page of a window. */
export function windowParams({ from, to, eventType, entityId }: WindowQuery): URLSearchParams {
  const params = new URLSearchParams({ from: String(from), to: String(to) });
  if (eventType) params.set('eventType', eventType);
  if (entityId) params.set('entityId', entityId);
  return params;
}

/**
 * Query of a following page: the cursor alone (it carries the rest). The real service hands out cursors already
 * percent-encoded (`…%3D%3D`); decoding first means URLSearchParams puts exactly those bytes back on the wire.
 * A base64 cursor never holds a literal `%`, so decoding cannot change one that was not encoded.
 */
export function cursorParams(cursor: string): URLSearchParams {
  return new URLSearchParams({ cursor: decodedCursor(cursor) });
}

/** A cursor with a `%` that is not an escape (`%E0%A4%A`) cannot have been encoded: it goes out as it is. */
function decodedCursor(cursor: string): string {
  try {
    return decodeURIComponent(cursor);
  } catch {
    return cursor;
  }
}
