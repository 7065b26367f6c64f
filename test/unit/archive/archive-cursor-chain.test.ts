import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import { createCursorChain, MAX_WINDOW_PAGES } from '../../../src/archive/cursor-chain.js';
import type { FeedPage } from '../../../src/archive/feed-page-parse.js';
import { pageWindow, type FetchPage } from '../../../src/archive/page-window.js';

/** The spec example's cursor: 80 characters, percent-encoded base64. */
const SPEC_CURSOR = 'AgEBAAFn5IIFrgEAAAFofwDTrgAAAQAcMTY4N2RhYzViZTAtZmUxODEwOWQ5YTA1MTIyNQ%3D%3D';
const WINDOW = { from: 1521042929000, to: 1521542929000 };

function thrown(act: () => void): ArchiveError {
  try {
    act();
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return error as ArchiveError;
  }
  return expect.unreachable('no error');
}

describe('createCursorChain', () => {
  it('follows cursors it has not seen, and refuses one it has, naming it and the pages fetched', () => {
    const chain = createCursorChain();
    chain.follow('A');
    chain.follow('B');
    const error = thrown(() => chain.follow('A'));
    expect(error.code).toBe('BAD_PAGE');
    expect(error.message).toBe("the feed's cursors go round in a loop: after 3 pages of one window it named cursor 'A' a second time; stopping instead of looping");
  });

  it('refuses a page naming the cursor that fetched it', () => {
    const chain = createCursorChain();
    chain.follow('again');
    expect(thrown(() => chain.follow('again')).message).toContain('after 2 pages of one window it named cursor \'again\' a second time');
  });

  it('keeps refusing a repeated cursor, and tells apart cursors that differ only at the end', () => {
    const chain = createCursorChain();
    chain.follow(`${SPEC_CURSOR}1`);
    chain.follow(`${SPEC_CURSOR}2`);
    expect(thrown(() => chain.follow(`${SPEC_CURSOR}1`)).message).toContain('after 3 pages');
    expect(thrown(() => chain.follow(`${SPEC_CURSOR}2`)).message).toContain('after 3 pages');
    chain.follow(`${SPEC_CURSOR}3`);
  });

  it('shows a cursor of up to 40 characters whole, and a longer one by its first 24 and last 8', () => {
    const chain = createCursorChain();
    chain.follow(SPEC_CURSOR);
    expect(thrown(() => chain.follow(SPEC_CURSOR)).message).toContain("cursor 'AgEBAAFn5IIFrgEAAAFofwDT…NQ%3D%3D' a second time");
    const forty = `${'x'.repeat(39)}z`;
    chain.follow(forty);
    expect(thrown(() => chain.follow(forty)).message).toContain(`cursor '${forty}' a second time`);
    const longer = `a${'y'.repeat(39)}z`;
    chain.follow(longer);
    expect(thrown(() => chain.follow(longer)).message).toContain(`cursor 'a${'y'.repeat(23)}…${'y'.repeat(7)}z' a second time`);
  });

  it('allows a window exactly its page bound, and refuses the cursor that would go past it', () => {
    const fits = createCursorChain(3);
    fits.follow('c1');
    fits.follow('c2');
    // Page 3 names no cursor: the window ends within its bound.
    const over = createCursorChain(3);
    over.follow('c1');
    over.follow('c2');
    const error = thrown(() => over.follow('c3'));
    expect(error.code).toBe('BAD_PAGE');
    expect(error.message).toBe("the feed's window did not end within 3 pages (its last named cursor 'c3'); stopping in case its cursors never end");
  });

  it('reports a loop as a loop even at the page bound', () => {
    const chain = createCursorChain(2);
    chain.follow('c1');
    expect(thrown(() => chain.follow('c1')).message).toContain('go round in a loop');
  });

  it('answers canFollow without recording anything: false for a seen cursor or at the bound', () => {
    const chain = createCursorChain(3);
    expect(chain.canFollow('c1')).toBe(true);
    expect(chain.canFollow('c1')).toBe(true);
    chain.follow('c1');
    expect(chain.canFollow('c1')).toBe(false);
    expect(chain.canFollow('c2')).toBe(true);
    chain.follow('c2');
    expect(chain.canFollow('c3')).toBe(false);
  });

  it('allows a million pages per window by default', () => {
    expect(MAX_WINDOW_PAGES).toBe(1_000_000);
  });
});

/** An empty page of the window that points at `next` (or ends the chain). */
function page(next: string | null): string {
  return JSON.stringify({ events: [], totalEventCount: 0, from: WINDOW.from, to: WINDOW.to, nextCursor: next });
}

describe('pageWindow with cursors that go round in a loop', () => {
  it('stops at the first cursor seen again, handing over only the pages before the one that names it', async () => {
    // A, B, A, B, …: each cursor differs from the one just before it.
    const chain: Record<string, string> = { '': 'A', A: 'B', B: 'A' };
    const fetched: string[] = [];
    const seen: FeedPage[] = [];
    const fetchPage: FetchPage = async (query) => {
      fetched.push(query.toString());
      if (fetched.length > 50) return page(null);
      return page(chain[query.get('cursor') ?? ''] as string);
    };
    const error = await pageWindow(fetchPage, WINDOW, new AbortController().signal, async (p) => void seen.push(p)).then(
      () => expect.unreachable('pageWindow resolved'),
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error).toMatchObject({ code: 'BAD_PAGE', message: "the feed's cursors go round in a loop: after 3 pages of one window it named cursor 'A' a second time; stopping instead of looping" });
    // Not even a guessed page is fetched for the repeated cursor.
    expect(fetched).toEqual(['from=1521042929000&to=1521542929000', 'cursor=A', 'cursor=B']);
    expect(seen.map((p) => p.nextCursor)).toEqual(['A', 'B']);
  });
});
