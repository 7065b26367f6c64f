import { ArchiveError } from './archive-error.js';
import { cursorParams, parseFeedPage, windowParams, type FeedPage, type WindowQuery } from './feed-page.js';

/** Raw JSON text of one EventQueryResult for `query`. Retries are the caller's (the client module does them). */
export type FetchPage = (query: URLSearchParams, signal: AbortSignal) => Promise<string>;

/**
 * Pages through one window, handing each page to `onPage` in feed order. The next page is fetched while the
 * current one is being written (its cursor is known as soon as the page arrives), so the network and the disk
 * overlap; `onPage` calls never overlap each other. A failure or abort stops the in-flight fetch too.
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
  const fetchParsed = (params: URLSearchParams): Promise<FeedPage> => {
    controller.signal.throwIfAborted();
    const pending = fetchPage(params, controller.signal).then(parseFeedPage);
    // Observed when awaited; this only keeps an abandoned prefetch from being reported as unhandled.
    pending.catch(() => undefined);
    return pending;
  };
  try {
    let next: Promise<FeedPage> | undefined = fetchParsed(windowParams(query));
    let previousCursor: string | undefined;
    while (next) {
      const page: FeedPage = await next;
      if (page.nextCursor !== undefined && page.nextCursor === previousCursor) {
        throw new ArchiveError('BAD_PAGE', 'the feed returned the same nextCursor twice; stopping instead of looping');
      }
      previousCursor = page.nextCursor;
      next = page.nextCursor === undefined ? undefined : fetchParsed(cursorParams(page.nextCursor));
      await onPage(page);
      signal.throwIfAborted();
    }
  } finally {
    signal.removeEventListener('abort', stop);
    controller.abort();
  }
}
