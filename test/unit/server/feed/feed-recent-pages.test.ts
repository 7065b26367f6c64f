import { describe, expect, it } from 'vitest';
import { RecentPages } from '../../../../src/server/feed/recent-pages.js';
import type { LogSpan } from '../../../../src/server/feed/span-reader.js';

/** A page of ten-byte events at `offsets`, each text naming its offset. */
function page(offsets: number[]): { spans: LogSpan[]; texts: Buffer[] } {
  return { spans: offsets.map((offset) => ({ offset, length: 10 })), texts: offsets.map((offset) => Buffer.from(String(offset).padStart(10, '0'))) };
}

const strings = (texts: readonly Buffer[] | undefined): string[] | undefined => texts?.map((text) => text.toString());

describe('RecentPages', () => {
  it('answers a page it kept with its texts, and a page of other offsets not at all', () => {
    const recent = new RecentPages(1000);
    const kept = page([0, 11, 22]);
    recent.set(kept.spans, kept.texts);
    expect(strings(recent.get(page([0, 11, 22]).spans))).toEqual(['0000000000', '0000000011', '0000000022']);
    // Same count and ends, another event in the middle (one replaced since): a miss, never the old text.
    expect(recent.get(page([0, 15, 22]).spans)).toBeUndefined();
    expect(recent.get(page([0, 11]).spans)).toBeUndefined();
    expect(recent.get([])).toBeUndefined();
  });

  it('hands out texts that stay as they were when later pages take the place of theirs', () => {
    const recent = new RecentPages(40);
    const a = page([0, 11]);
    recent.set(a.spans, a.texts);
    const got = recent.get(a.spans);
    const b = page([100, 111]);
    const c = page([200, 211]);
    recent.set(b.spans, b.texts);
    recent.set(c.spans, c.texts); // wraps onto a's place
    expect(recent.get(a.spans)).toBeUndefined();
    expect(strings(got)).toEqual(['0000000000', '0000000011']);
  });

  it('gives the oldest pages way to a new one, and never keeps a page larger than its capacity', () => {
    const recent = new RecentPages(50);
    const [a, b, c] = [page([0, 11]), page([100, 111]), page([200, 211])];
    recent.set(a.spans, a.texts);
    recent.set(b.spans, b.texts);
    recent.set(c.spans, c.texts); // 20 bytes do not fit after 40 of 50: c goes where a was
    expect(recent.get(a.spans)).toBeUndefined();
    expect(strings(recent.get(b.spans))).toEqual(['0000000100', '0000000111']);
    expect(strings(recent.get(c.spans))).toEqual(['0000000200', '0000000211']);
    const huge = page([300, 311, 322, 333, 344, 355]);
    recent.set(huge.spans, huge.texts);
    expect(recent.get(huge.spans)).toBeUndefined();
    expect(strings(recent.get(c.spans))).toEqual(['0000000200', '0000000211']);
  });

  it('keeps a page exactly its capacity, and refuses one a byte larger', () => {
    const fits = page([0, 11]);
    const exact = new RecentPages(20);
    exact.set(fits.spans, fits.texts);
    expect(strings(exact.get(fits.spans))).toEqual(['0000000000', '0000000011']);
    const short = new RecentPages(19);
    short.set(fits.spans, fits.texts);
    expect(short.get(fits.spans)).toBeUndefined();
  });

  it('places a page that exactly fills the ring after the last one, and drops only the pages a wrapped one overwrites', () => {
    const recent = new RecentPages(30);
    const [a, b, c] = [page([0]), page([100, 111]), page([200])];
    recent.set(a.spans, a.texts);
    recent.set(b.spans, b.texts); // bytes 10 to 30: ends exactly at the ring's end, so both stay
    expect(strings(recent.get(a.spans))).toEqual(['0000000000']);
    expect(strings(recent.get(b.spans))).toEqual(['0000000100', '0000000111']);
    recent.set(c.spans, c.texts); // wraps onto bytes 0 to 10: a's, ending where b begins
    expect(recent.get(a.spans)).toBeUndefined();
    expect(strings(recent.get(b.spans))).toEqual(['0000000100', '0000000111']);
    expect(strings(recent.get(c.spans))).toEqual(['0000000200']);
  });

  it('keeps no page without bytes: a hit there would save no read', () => {
    const recent = new RecentPages(30);
    const a = page([0]);
    recent.set(a.spans, a.texts);
    const empty = [{ offset: 10, length: 0 }];
    recent.set(empty, [Buffer.alloc(0)]);
    expect(recent.get(empty)).toBeUndefined();
    expect(strings(recent.get(a.spans))).toEqual(['0000000000']);
  });
});
