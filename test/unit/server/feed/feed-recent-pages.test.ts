import { describe, expect, it } from 'vitest';
import { RecentPages } from '../../../../src/server/feed/recent-pages.js';
import type { LogSpan } from '../../../../src/server/feed/span-reader.js';

/** A page of ten-byte events at `offsets`, each text naming its offset, and its block (texts a comma apart). */
function page(offsets: number[]): { spans: LogSpan[]; block: Buffer } {
  return { spans: offsets.map((offset) => ({ offset, length: 10 })), block: Buffer.from(offsets.map((offset) => String(offset).padStart(10, '0')).join(',')) };
}

/** What a hit copies for `spans`, read from a body where the block starts 3 bytes in; undefined on a miss. */
function kept(recent: RecentPages, spans: readonly LogSpan[]): string | undefined {
  const size = spans.reduce((sum, span) => sum + span.length + 1, -1);
  const body = Buffer.alloc(3 + Math.max(0, size) + 2, '#');
  if (!recent.copyInto(spans, body, 3)) return undefined;
  // Nothing before or after the block is touched.
  expect(body.subarray(0, 3).toString() + body.subarray(body.length - 2).toString()).toBe('#####');
  return body.subarray(3, body.length - 2).toString();
}

describe('RecentPages', () => {
  it('answers a page it kept with its block, and a page of other offsets not at all', () => {
    const recent = new RecentPages(1000);
    const a = page([0, 11, 22]);
    recent.set(a.spans, a.block);
    expect(kept(recent, page([0, 11, 22]).spans)).toBe('0000000000,0000000011,0000000022');
    // Same count and ends, another event in the middle (one replaced since): a miss, never the old text.
    expect(kept(recent, page([0, 15, 22]).spans)).toBeUndefined();
    expect(kept(recent, page([0, 11]).spans)).toBeUndefined();
    expect(kept(recent, [])).toBeUndefined();
  });

  it('answers a page of the same offsets but other lengths not at all: its block would not fill the body', () => {
    const recent = new RecentPages(1000);
    const a = page([0, 11, 22]);
    recent.set(a.spans, a.block);
    expect(kept(recent, a.spans.map((span, i) => (i === 2 ? { ...span, length: 12 } : span)))).toBeUndefined();
  });

  it('copies a block out, so what a body got stays as it was when later pages take its place', () => {
    const recent = new RecentPages(45);
    const a = page([0, 11]);
    recent.set(a.spans, a.block);
    const body = Buffer.alloc(21);
    expect(recent.copyInto(a.spans, body, 0)).toBe(true);
    recent.set(page([100, 111]).spans, page([100, 111]).block);
    recent.set(page([200, 211]).spans, page([200, 211]).block); // wraps onto a's place
    expect(kept(recent, a.spans)).toBeUndefined();
    expect(body.toString()).toBe('0000000000,0000000011');
  });

  it('keeps its own copy of a block, not the buffer it was given', () => {
    const recent = new RecentPages(100);
    const a = page([0, 11]);
    recent.set(a.spans, a.block);
    a.block.fill('x');
    expect(kept(recent, a.spans)).toBe('0000000000,0000000011');
  });

  it('gives the oldest pages way to a new one, and never keeps a page larger than its capacity', () => {
    const recent = new RecentPages(50);
    const [a, b, c] = [page([0, 11]), page([100, 111]), page([200, 211])];
    recent.set(a.spans, a.block);
    recent.set(b.spans, b.block);
    recent.set(c.spans, c.block); // 21 bytes do not fit after 42 of 50: c goes where a was
    expect(kept(recent, a.spans)).toBeUndefined();
    expect(kept(recent, b.spans)).toBe('0000000100,0000000111');
    expect(kept(recent, c.spans)).toBe('0000000200,0000000211');
    const huge = page([300, 311, 322, 333, 344]);
    recent.set(huge.spans, huge.block);
    expect(kept(recent, huge.spans)).toBeUndefined();
    expect(kept(recent, c.spans)).toBe('0000000200,0000000211');
  });

  it('keeps a page exactly its capacity, and refuses one a byte larger', () => {
    const fits = page([0, 11]);
    const exact = new RecentPages(21);
    exact.set(fits.spans, fits.block);
    expect(kept(exact, fits.spans)).toBe('0000000000,0000000011');
    const short = new RecentPages(20);
    short.set(fits.spans, fits.block);
    expect(kept(short, fits.spans)).toBeUndefined();
  });

  it('places a page that exactly fills the ring after the last one, and drops only the pages a wrapped one overwrites', () => {
    const recent = new RecentPages(31);
    const [a, b, c] = [page([0]), page([100, 111]), page([200])];
    recent.set(a.spans, a.block);
    recent.set(b.spans, b.block); // bytes 10 to 31: ends exactly at the ring's end, so both stay
    expect(kept(recent, a.spans)).toBe('0000000000');
    expect(kept(recent, b.spans)).toBe('0000000100,0000000111');
    recent.set(c.spans, c.block); // wraps onto bytes 0 to 10: a's, ending where b begins
    expect(kept(recent, a.spans)).toBeUndefined();
    expect(kept(recent, b.spans)).toBe('0000000100,0000000111');
    expect(kept(recent, c.spans)).toBe('0000000200');
  });

  it('keeps the page set again, once, at its new place', () => {
    const recent = new RecentPages(42);
    const [a, b] = [page([0, 11]), page([100, 111])];
    recent.set(a.spans, a.block);
    recent.set(b.spans, b.block);
    recent.set(a.spans, a.block); // wraps onto bytes 0 to 21 again; the old entry of a is gone, not doubled
    expect(kept(recent, a.spans)).toBe('0000000000,0000000011');
    expect(kept(recent, b.spans)).toBe('0000000100,0000000111');
  });

  it('keeps no page without bytes: a hit there would save no read', () => {
    const recent = new RecentPages(30);
    const a = page([0]);
    recent.set(a.spans, a.block);
    const empty = [{ offset: 10, length: 0 }];
    recent.set(empty, Buffer.alloc(0));
    expect(kept(recent, empty)).toBeUndefined();
    expect(kept(recent, a.spans)).toBe('0000000000');
  });
});
