import { z } from 'zod';
import { JsonScanError, scanObjectMembers, splitArrayItems } from '../lib/json-scan.js';
import { archivedEventFromFeed, type ArchivedEvent } from './archived-event.js';
import { ArchiveError } from './archive-error.js';

/** The paging fields of an EventQueryResult; the events are read raw, not through this schema. */
const PageMeta = z.object({
  nextCursor: z.string().nullish(),
  totalEventCount: z.number().nullish(),
  from: z.number().nullish(),
  to: z.number().nullish(),
});

export interface FeedPage {
  readonly events: ArchivedEvent[];
  readonly nextCursor: string | undefined;
  readonly totalEventCount: number | undefined;
}

/**
 * Reads one EventQueryResult from its raw text. Only the small paging members are JSON.parsed; `events` is split
 * into the raw text of each event so 64-bit `eventId`s are never turned into (rounded) numbers.
 */
export function parseFeedPage(text: string): FeedPage {
  let members: Map<string, string>;
  let items: string[];
  try {
    members = scanObjectMembers(text);
    const events = members.get('events');
    items = events === undefined || events === 'null' ? [] : splitArrayItems(events);
  } catch (error) {
    if (error instanceof JsonScanError) throw new ArchiveError('BAD_PAGE', `the feed answered malformed JSON (${error.message})`, { cause: error });
    throw error;
  }
  const meta = PageMeta.safeParse({
    nextCursor: parseMember(members, 'nextCursor'),
    totalEventCount: parseMember(members, 'totalEventCount'),
    from: parseMember(members, 'from'),
    to: parseMember(members, 'to'),
  });
  if (!meta.success) throw new ArchiveError('BAD_PAGE', `the feed answered an unexpected page: ${meta.error.message}`);
  const events = items.map((item, index) => {
    try {
      return archivedEventFromFeed(item);
    } catch (error) {
      throw new ArchiveError('BAD_PAGE', `event ${index} of the page: ${(error as Error).message}`, { cause: error });
    }
  });
  return {
    events,
    nextCursor: meta.data.nextCursor || undefined,
    totalEventCount: meta.data.totalEventCount ?? undefined,
  };
}

function parseMember(members: Map<string, string>, key: string): unknown {
  const raw = members.get(key);
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new ArchiveError('BAD_PAGE', `member ${key} of the page is not JSON`);
  }
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
  let value = cursor;
  if (cursor.includes('%')) {
    try {
      value = decodeURIComponent(cursor);
    } catch {
      value = cursor;
    }
  }
  return new URLSearchParams({ cursor: value });
}
