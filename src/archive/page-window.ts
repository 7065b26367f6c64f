import { createCursorChain } from './cursor-chain.js';
import { cursorParams, parseFeedPage, windowParams, type FeedPage, type WindowQuery } from './feed-page-parse.js';

/** Raw JSON text of one EventQueryResult for `query`. Retries are the caller's (the client module does them). */
export type FetchPage = (query: URLSearchParams, signal: AbortSignal) => Promise<string>;

/** Pages fetched ahead of the one being written: the cursor chain is serial, but it need not wait for the disk. */
const PREFETCH_DEPTH = 8;

/**
 * Pages through one window, handing each page to `onPage` in feed order; `onPage` calls never overlap. A fetcher
 * follows the cursor chain up to PREFETCH_DEPTH pages ahead, so network and disk overlap. A failure on either side
 * (or an abort) stops the other, and this resolves only once both have stopped.
 */
export async function pageWindow(
  fetchPage: FetchPage,
  query: WindowQuery,
  signal: AbortSignal,
  onPage: (page: FeedPage) => Promise<void>,
): Promise<void> {
  const controller = new AbortController();
  const stop = (): void => controller.abort(signal.reason);
  if (signal.aborted) stop();
  signal.addEventListener('abort', stop, { once: true });
  const pages = createPageBuffer(PREFETCH_DEPTH, controller.signal);
  const fetcher = fetchChain(fetchPage, query, controller.signal, pages);
  try {
    for (let page = await pages.take(); page; page = await pages.take()) {
      await onPage(page);
      signal.throwIfAborted();
    }
  } catch (error) {
    controller.abort(error);
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    await fetcher;
  }
}

/**
 * The `nextCursor` a page's raw text names, found from the end without parsing (the feed writes it after the
 * events). Only a guess: an event could carry an object with such a member, so the parsed page decides.
 */
function cursorHint(text: string): string | undefined {
  const at = text.lastIndexOf(CURSOR_MEMBER);
  if (at === -1) return undefined;
  const start = at + CURSOR_MEMBER.length;
  const end = text.indexOf('"', start);
  const cursor = end === -1 ? '' : text.slice(start, end);
  return cursor === '' || cursor.includes('\\') ? undefined : cursor;
}

const CURSOR_MEMBER = '"nextCursor":"';

interface Fetch {
  readonly text: Promise<string>;
  readonly abort: () => void;
}

/**
 * One page request that can be dropped on its own (a wrong guess) or with the chain (`signal`). The chain's abort is
 * passed on by a listener held while the request runs: AbortSignal.any per page cost a pull more than its cursor
 * guesses saved (on Node 20 it also registers with its sources for as long as they live).
 */
function startFetch(fetchPage: FetchPage, params: URLSearchParams, signal: AbortSignal): Fetch {
  const own = new AbortController();
  const passOn = (): void => own.abort(signal.reason);
  if (signal.aborted) passOn();
  else signal.addEventListener('abort', passOn, { once: true });
  const text = fetchPage(params, own.signal);
  const settled = (): void => signal.removeEventListener('abort', passOn);
  // Also makes a dropped request's failure nobody's: it must not surface as an unhandled rejection.
  text.then(settled, settled);
  return { text, abort: () => own.abort() };
}

/**
 * Follows the cursor chain. The next page is requested as soon as this one's text names its cursor, before the
 * page is parsed, so the server prepares page n+1 while page n is parsed; a guess the parse contradicts is dropped
 * and the page parsed cursor is fetched instead. A page naming a cursor that cannot be followed (one the window has
 * seen, or one past its page bound) fails the window before it is handed over, so the pages before it are all that
 * is written, and all the checkpoint can cover.
 */
async function fetchChain(fetchPage: FetchPage, query: WindowQuery, signal: AbortSignal, pages: PageBuffer): Promise<void> {
  let next: Fetch | undefined;
  let ahead: { cursor: string; fetch: Fetch } | undefined;
  try {
    await pages.room();
    next = startFetch(fetchPage, windowParams(query), signal);
    const cursors = createCursorChain();
    for (;;) {
      const text = await next.text;
      const hint = cursorHint(text);
      // Ahead only while this page and the next both fit in the buffer: the depth bound holds for guesses too.
      ahead = hint !== undefined && cursors.canFollow(hint) && pages.spare() >= 2 ? { cursor: hint, fetch: startFetch(fetchPage, cursorParams(hint), signal) } : undefined;
      const page = parseFeedPage(text);
      signal.throwIfAborted();
      if (page.nextCursor !== undefined) cursors.follow(page.nextCursor);
      pages.put(page);
      if (page.nextCursor === undefined) break;
      if (page.nextCursor === ahead?.cursor) next = ahead.fetch;
      else {
        ahead?.fetch.abort();
        await pages.room();
        next = startFetch(fetchPage, cursorParams(page.nextCursor), signal);
      }
      ahead = undefined;
    }
    ahead?.fetch.abort();
    pages.end();
  } catch (error) {
    ahead?.fetch.abort();
    next?.abort();
    pages.fail(error);
  }
}

interface PageBuffer {
  /** The next page, or undefined after the last; rejects with the fetcher's error. */
  take(): Promise<FeedPage | undefined>;
  /** Resolves when fewer than `depth` pages wait; rejects once the consumer has stopped. */
  room(): Promise<void>;
  /** How many more pages fit right now. */
  spare(): number;
  put(page: FeedPage): void;
  end(): void;
  fail(error: unknown): void;
}

function createPageBuffer(depth: number, consumerGone: AbortSignal): PageBuffer {
  const waiting: FeedPage[] = [];
  let ended = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  consumerGone.addEventListener('abort', notify, { once: true });
  const sleep = (): Promise<void> => new Promise<void>((resolve) => (wake = resolve));
  return {
    async take() {
      for (;;) {
        const page = waiting.shift();
        if (page) {
          notify();
          return page;
        }
        if (failure) throw failure.error;
        if (ended) return undefined;
        await sleep();
      }
    },
    async room() {
      while (waiting.length >= depth) {
        consumerGone.throwIfAborted();
        await sleep();
      }
      consumerGone.throwIfAborted();
    },
    spare: () => depth - waiting.length,
    put: (page) => {
      waiting.push(page);
      notify();
    },
    end: () => {
      ended = true;
      notify();
    },
    fail: (error) => {
      failure = { error };
      notify();
    },
  };
}
