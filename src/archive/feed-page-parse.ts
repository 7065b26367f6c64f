import { scanJsonPage, type PageShape, type ScannedPage } from '../lib/json-page-scan.js';
import { EventQueryResult } from '../schema/events.js';
import { archivedEventFromFeed, SCANNED_EVENT, type ArchivedEvent } from './archived-event.js';
import { ArchiveError } from './archive-error.js';

/**
 * The paging members, checked with the shared EventQueryResult schema. The events are only required to be an
 * array: each is read by eventViewOf, since running zod over every event would cost more than the rest of a pull.
 */
const PageMeta = EventQueryResult.pick({ nextCursor: true, totalEventCount: true, from: true, to: true });

/** What the archive takes from a page: the paging members, and of each event what SCANNED_EVENT names. */
const PAGE_SHAPE: PageShape = {
  members: ['nextCursor', 'totalEventCount', 'from', 'to'],
  items: 'events',
  itemMembers: SCANNED_EVENT.members,
  itemTexts: SCANNED_EVENT.texts,
};

export interface FeedPage {
  readonly events: ArchivedEvent[];
  readonly nextCursor: string | undefined;
  readonly totalEventCount: number | undefined;
}

/**
 * Reads one EventQueryResult from its raw text, in one pass that checks the whole page as JSON.parse would and takes
 * each event's raw text, which is what gets written, and the few members the archive reads.
 */
export function parseFeedPage(text: string): FeedPage {
  let scanned: ScannedPage;
  try {
    scanned = scanJsonPage(text, PAGE_SHAPE);
  } catch (error) {
    // The scan throws only SyntaxError (not JSON) and JsonScanError (JSON but not an object): either way not a page.
    throw new ArchiveError('BAD_PAGE', `the feed answered malformed JSON (${(error as Error).message})`, { cause: error });
  }
  const { members } = scanned;
  const page = PageMeta.safeParse({ nextCursor: members.nextCursor, totalEventCount: members.totalEventCount, from: members.from, to: members.to });
  const items = scanned.items ?? (members.events == null ? [] : undefined);
  if (!page.success || items === undefined) {
    throw new ArchiveError('BAD_PAGE', `the feed answered an unexpected page: ${page.error?.issues[0]?.message ?? 'events is not an array'}`);
  }
  const events = items.map((item, index) => {
    try {
      return archivedEventFromFeed(item.text, item.values);
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
