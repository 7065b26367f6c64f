import { seenTexts } from '../lib/seen-texts.js';
import { ArchiveError } from './archive-error.js';

/**
 * Pages one window may take. A window spans at most two years (MAX_EVENTS_TIMEFRAME_MS) of pages of 150 events
 * (EVENTS_PAGE_SIZE): a million pages is 150 million events, over 200,000 a day for two years, and about 25 minutes
 * of a pull at the benchmarks' 100,000 events/s. It stops a feed whose cursors never repeat and never end, which no
 * loop check can see, and bounds the cursors kept (a 32-byte digest each: 66 MB with the Set's overhead at the
 * bound, under 1 MB for a window of 10,000 pages). A window that reaches it loses nothing: it fails like any bad page,
 * the checkpoint covers the pages written, and the next run resumes below them (pages come newest first) in a window
 * of its own.
 */
export const MAX_WINDOW_PAGES = 1_000_000;

/** The cursors of one window's chain: each may be followed once (a repeat is a loop), and only so many of them. */
export interface CursorChain {
  /** Whether `follow(cursor)` would succeed now (asked before a guessed page is fetched ahead). */
  canFollow(cursor: string): boolean;
  /** Records the cursor the last page names, or fails the window with BAD_PAGE: a repeated cursor, or too many pages. */
  follow(cursor: string): void;
}

export function createCursorChain(maxPages = MAX_WINDOW_PAGES): CursorChain {
  const seen = seenTexts();
  /** Pages fetched so far: the first, asked for by the window's query, needs no cursor. */
  let pages = 1;
  return {
    canFollow: (cursor) => pages < maxPages && !seen.has(cursor),
    follow(cursor) {
      if (!seen.add(cursor)) {
        throw new ArchiveError('BAD_PAGE', `the feed's cursors go round in a loop: after ${pages} pages of one window it named cursor ${shownCursor(cursor)} a second time; stopping instead of looping`);
      }
      if (pages >= maxPages) {
        throw new ArchiveError('BAD_PAGE', `the feed's window did not end within ${maxPages} pages (its last named cursor ${shownCursor(cursor)}); stopping in case its cursors never end`);
      }
      pages++;
    },
  };
}

/** Cursors longer than this are shown by their two ends: enough to recognise one in the feed's answers. */
const SHOWN_LENGTH = 40;

/**
 * A cursor as a message shows it: quoted, and cut short. Control characters in it are the printing side's to
 * neutralise, as for any text from the feed (the CLI's error output and the log both do).
 */
function shownCursor(cursor: string): string {
  return `'${cursor.length > SHOWN_LENGTH ? `${cursor.slice(0, 24)}…${cursor.slice(-8)}` : cursor}'`;
}
