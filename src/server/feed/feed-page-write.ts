import { EVENTS_PAGE_SIZE } from '../../schema/events.js';
import { encodeCursor } from './cursor.js';
import type { EventStore, PageBody } from './event-store.js';
import type { FeedRequest } from './feed-query.js';
import type { IndexFilter } from './index-query.js';

const FRAME_HEAD = Buffer.from('{"events":[');
const COMMA = 0x2c;

/**
 * Answers one list-events request with the EventQueryResult bytes. The event texts are copied from the log as they
 * are, so an `eventId` never passes through a JS number; the envelope around them is written by hand for the same
 * reason (`nextEventId` is an int64).
 */
export async function readFeedPage(
  store: EventStore,
  request: FeedRequest,
  { cursorKey, env, pageSize = EVENTS_PAGE_SIZE }: { cursorKey: Buffer; env: string; pageSize?: number },
): Promise<PageBody> {
  const first = request.kind === 'first';
  const filter: IndexFilter = first ? request.filter : request.state.filter;
  const watermark = first ? store.size : request.state.watermark;
  const pageRequest = { filter, after: first ? undefined : request.state.after, watermark, limit: pageSize, countTotal: first };
  return store.queryBody(pageRequest, (page) => {
    const total = first ? (page.total ?? 0) : request.state.total;
    let nextCursor = 'null';
    if (page.next && page.last) {
      const state = { filter, watermark, total, after: page.last.key };
      nextCursor = JSON.stringify(encodeCursor(state, cursorKey, env, page.last.eventId));
    }
    const tail =
      `],"totalEventCount":${total},"from":${filter.from},"to":${filter.to},"nextCursor":${nextCursor},` +
      `"nextEventId":${page.next?.eventId ?? 'null'},"nextEventStartTms":${page.next?.key.start ?? 'null'}}`;
    return { head: FRAME_HEAD, separator: COMMA, tail: Buffer.from(tail) };
  });
}
