import { ArchiveError } from './archive-error.js';
import { cursorParams, parseFeedPage, windowParams, type FeedPage, type WindowQuery } from './feed-page.js';

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

async function fetchChain(fetchPage: FetchPage, query: WindowQuery, signal: AbortSignal, pages: PageBuffer): Promise<void> {
  try {
    let params = windowParams(query);
    let previousCursor: string | undefined;
    for (;;) {
      await pages.room();
      const page = parseFeedPage(await fetchPage(params, signal));
      signal.throwIfAborted();
      if (page.nextCursor !== undefined && page.nextCursor === previousCursor) {
        throw new ArchiveError('BAD_PAGE', 'the feed returned the same nextCursor twice; stopping instead of looping');
      }
      pages.put(page);
      if (page.nextCursor === undefined) break;
      previousCursor = page.nextCursor;
      params = cursorParams(page.nextCursor);
    }
    pages.end();
  } catch (error) {
    pages.fail(error);
  }
}

interface PageBuffer {
  /** The next page, or undefined after the last; rejects with the fetcher's error. */
  take(): Promise<FeedPage | undefined>;
  /** Resolves when fewer than `depth` pages wait; rejects once the consumer has stopped. */
  room(): Promise<void>;
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
