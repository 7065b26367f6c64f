import { readFileSync } from 'node:fs';
import { getEventListeners } from 'node:events';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import type { FeedPage } from '../../../src/archive/feed-page-parse.js';
import { pageWindow, type FetchPage } from '../../../src/archive/page-window.js';
import { CORPUS_DIR } from '../../helpers/corpus.js';

/** The specification's EventQueryResult example: two events and the spec's (already percent-encoded) cursor. */
const SPEC_PAGE = readFileSync(join(CORPUS_DIR, 'events/dt-openapi-env-v1-1.254__EventQueryResult-example.json'), 'utf8');
const SPEC_CURSOR = 'AgEBAAFn5IIFrgEAAAFofwDTrgAAAQAcMTY4N2RhYzViZTAtZmUxODEwOWQ5YTA1MTIyNQ%3D%3D';
const WINDOW = { from: 1521042929000, to: 1521542929000 };

/** An empty page of the example window that points at `next` (or ends the chain). */
function page(next: string | null): string {
  return JSON.stringify({ events: [], totalEventCount: 2, from: WINDOW.from, to: WINDOW.to, nextCursor: next });
}

/** Lets every promise chain that needs no I/O run to its end: the fetcher either waits or has looped forever. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A feed of `count` pages chained by cursors `c1`…; records the query of every fetch. */
function chainedFeed(count: number): { fetchPage: FetchPage; queries: string[] } {
  const queries: string[] = [];
  const fetchPage: FetchPage = async (query) => {
    queries.push(query.toString());
    const index = queries.length;
    return page(index < count ? `c${index}` : null);
  };
  return { fetchPage, queries };
}

function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('pageWindow resolved'),
    (error: unknown) => error,
  );
}

describe('pageWindow', () => {
  it('follows the cursor chain from the window query, handing pages over in feed order', async () => {
    const texts = [SPEC_PAGE, page(null)];
    const queries: string[] = [];
    const seen: FeedPage[] = [];
    await pageWindow(
      async (query) => (queries.push(query.toString()), texts[queries.length - 1] as string),
      { ...WINDOW, eventType: 'SLOW_DISK', entityId: 'HOST-0000000000000007' },
      new AbortController().signal,
      async (p) => void seen.push(p),
    );
    // The real service's cursor goes back on the wire byte for byte, alone (it encodes the rest of the query).
    expect(queries).toEqual([
      'from=1521042929000&to=1521542929000&eventType=SLOW_DISK&entityId=HOST-0000000000000007',
      `cursor=${SPEC_CURSOR}`,
    ]);
    expect(seen.map((p) => p.events.map((e) => e.event.id))).toEqual([
      ['5915682011263205071_1521042929000', '5915682011263205071_1521042929000'],
      [],
    ]);
    expect(seen.map((p) => p.nextCursor)).toEqual([SPEC_CURSOR, undefined]);
  });

  it('fetches a one-page window once', async () => {
    const feed = chainedFeed(1);
    const seen: FeedPage[] = [];
    await pageWindow(feed.fetchPage, WINDOW, new AbortController().signal, async (p) => void seen.push(p));
    expect(feed.queries).toEqual(['from=1521042929000&to=1521542929000']);
    expect(seen).toHaveLength(1);
  });

  it('never runs more than 8 pages ahead of the page being written, and delivers all of them in order', async () => {
    const feed = chainedFeed(20);
    let release!: () => void;
    const firstWritten = new Promise<void>((resolve) => (release = resolve));
    const seen: (string | undefined)[] = [];
    const done = pageWindow(feed.fetchPage, WINDOW, new AbortController().signal, async (p) => {
      seen.push(p.nextCursor);
      if (seen.length === 1) await firstWritten;
    });
    await settle();
    // Page 1 is being written, pages 2-9 wait in the buffer.
    expect(feed.queries).toHaveLength(9);
    release();
    await done;
    expect(feed.queries).toHaveLength(20);
    expect(seen).toEqual([...Array.from({ length: 19 }, (_, i) => `c${i + 1}`), undefined]);
  });

  it('stops with BAD_PAGE instead of looping when the feed hands out the same cursor twice', async () => {
    const fetched: string[] = [];
    const seen: FeedPage[] = [];
    const error = await rejection(
      pageWindow(async (query) => (fetched.push(query.toString()), page('again')), WINDOW, new AbortController().signal, async (p) => void seen.push(p)),
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect((error as ArchiveError).code).toBe('BAD_PAGE');
    expect((error as ArchiveError).message).toBe("the feed's cursors go round in a loop: after 2 pages of one window it named cursor 'again' a second time; stopping instead of looping");
    expect(fetched).toEqual(['from=1521042929000&to=1521542929000', 'cursor=again']);
    expect(seen).toHaveLength(1);
  });

  it('hands over the pages fetched before a feed failure, then fails with the feed error unchanged', async () => {
    const failure = new Error('503 from the feed');
    let calls = 0;
    const seen: (string | undefined)[] = [];
    const error = await rejection(
      pageWindow(
        async () => {
          calls += 1;
          if (calls === 3) throw failure;
          return page(`c${calls}`);
        },
        WINDOW,
        new AbortController().signal,
        async (p) => void seen.push(p.nextCursor),
      ),
    );
    expect(error).toBe(failure);
    expect(seen).toEqual(['c1', 'c2']);
  });

  it('when writing a page fails, stops the fetcher and settles only after its fetch has ended', async () => {
    const failure = new Error('ENOSPC');
    const fetchSignals: AbortSignal[] = [];
    let endFetch!: () => void;
    let fetchEnded = false;
    const fetchPage: FetchPage = async (_query, signal) => {
      fetchSignals.push(signal);
      if (fetchSignals.length === 1) return page('c1');
      // The second fetch is in flight when the write fails; it ends only when the test lets it.
      await new Promise<void>((resolve) => (endFetch = resolve));
      fetchEnded = true;
      return page(null);
    };
    const done = rejection(pageWindow(fetchPage, WINDOW, new AbortController().signal, async () => {
      await settle();
      throw failure;
    }));
    await settle();
    await settle();
    expect(fetchSignals).toHaveLength(2);
    expect(fetchSignals[1]?.aborted).toBe(true);
    expect(fetchSignals[1]?.reason).toBe(failure);
    let settled = false;
    void done.then(() => (settled = true));
    await settle();
    expect(settled).toBe(false);
    endFetch();
    expect(await done).toBe(failure);
    expect(fetchEnded).toBe(true);
  });

  it('does not fetch at all when the signal is already aborted', async () => {
    const feed = chainedFeed(3);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    controller.abort(reason);
    const error = await rejection(pageWindow(feed.fetchPage, WINDOW, controller.signal, async () => undefined));
    expect(error).toBe(reason);
    expect(feed.queries).toEqual([]);
  });

  it('an abort while a fetch is in flight reaches the fetch, and the page it returns anyway is not written', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let fetchSignal: AbortSignal | undefined;
    let endFetch!: () => void;
    const seen: FeedPage[] = [];
    const done = rejection(
      pageWindow(
        async (_query, signal) => {
          fetchSignal = signal;
          await new Promise<void>((resolve) => (endFetch = resolve));
          return page('c1');
        },
        WINDOW,
        controller.signal,
        async (p) => void seen.push(p),
      ),
    );
    await settle();
    controller.abort(reason);
    expect(fetchSignal?.aborted).toBe(true);
    endFetch();
    expect(await done).toBe(reason);
    expect(seen).toEqual([]);
  });

  it('an abort while a page is written stops after that page', async () => {
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const feed = chainedFeed(5);
    const seen: FeedPage[] = [];
    const error = await rejection(
      pageWindow(feed.fetchPage, WINDOW, controller.signal, async (p) => {
        seen.push(p);
        controller.abort(reason);
      }),
    );
    expect(error).toBe(reason);
    expect(seen).toHaveLength(1);
  });

  it('leaves no listener on the caller’s signal once done, whichever way it ended', async () => {
    const signal = new AbortController().signal;
    await pageWindow(chainedFeed(2).fetchPage, WINDOW, signal, async () => undefined);
    await rejection(pageWindow(async () => page('again'), WINDOW, signal, async () => undefined));
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('passes the chain’s abort to each request without collecting a listener per page', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const feed = chainedFeed(60);
      await pageWindow(feed.fetchPage, WINDOW, new AbortController().signal, async () => undefined);
      expect(feed.queries).toHaveLength(60);
      await settle();
    } finally {
      process.off('warning', onWarning);
    }
    // Node warns of a leak past 10 listeners on one signal: 60 requests that each left theirs would trip it.
    expect(warnings.map((warning) => warning.message)).toEqual([]);
  });

  it('asks for the next page as soon as a page’s text names its cursor, before parsing it (dropped if the parse fails)', async () => {
    const queries: { query: string; signal: AbortSignal }[] = [];
    const broken = `{"events":[{"not json"],"nextCursor":"c1"}`;
    const error = await rejection(
      pageWindow(async (query, signal) => (queries.push({ query: query.toString(), signal }), queries.length === 1 ? broken : page(null)), WINDOW, new AbortController().signal, async () => undefined),
    );
    expect(error).toMatchObject({ code: 'BAD_PAGE' });
    expect(queries.map((q) => q.query)).toEqual(['from=1521042929000&to=1521542929000', 'cursor=c1']);
    expect(queries[1]?.signal.aborted).toBe(true);
  });

  it('drops a cursor guessed from the text when the parsed page names another, and follows the parsed one', async () => {
    // The page's own cursor comes first; an event carries an object with a nextCursor member after it.
    const first = JSON.stringify({
      nextCursor: 'real',
      totalEventCount: 2,
      from: WINDOW.from,
      to: WINDOW.to,
      events: (JSON.parse(SPEC_PAGE) as { events: Record<string, unknown>[] }).events.map((e) => ({ ...e, customProperties: { nextCursor: 'bogus' } })),
    });
    const queries: { query: string; signal: AbortSignal }[] = [];
    const seen: FeedPage[] = [];
    await pageWindow(
      async (query, signal) => {
        queries.push({ query: query.toString(), signal });
        return query.get('cursor') === null ? first : page(null);
      },
      WINDOW,
      new AbortController().signal,
      async (p) => void seen.push(p),
    );
    expect(queries.map((q) => q.query)).toEqual(['from=1521042929000&to=1521542929000', 'cursor=bogus', 'cursor=real']);
    expect(queries.map((q) => q.signal.aborted)).toEqual([false, true, false]);
    expect(seen.map((p) => p.events.length)).toEqual([2, 0]);
  });
});
