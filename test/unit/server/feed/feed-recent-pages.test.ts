import { describe, expect, it } from 'vitest';
import { RecentPages } from '../../../../src/server/feed/recent-pages.js';
import type { LogSpan } from '../../../../src/server/feed/span-reader.js';

/** A page of `count` ten-byte events from `offset` on, with texts naming their offsets. */
function page(offsets: number[]): { spans: LogSpan[]; texts: Buffer[] } {
  return { spans: offsets.map((offset) => ({ offset, length: 10 })), texts: offsets.map((offset) => Buffer.from(String(offset).padStart(10, '0'))) };
}

describe('RecentPages', () => {
  it('answers a page it kept with the same texts, and a page of other offsets not at all', () => {
    const recent = new RecentPages(1000);
    const kept = page([0, 11, 22]);
    recent.set(kept.spans, kept.texts);
    expect(recent.get(page([0, 11, 22]).spans)).toBe(kept.texts);
    // Same count and ends, another event in the middle (one replaced since): a miss, never the old text.
    expect(recent.get(page([0, 15, 22]).spans)).toBeUndefined();
    expect(recent.get(page([0, 11]).spans)).toBeUndefined();
    expect(recent.get([])).toBeUndefined();
  });

  it('drops the least recently used pages past its byte budget, and never keeps a page larger than it', () => {
    const recent = new RecentPages(50);
    const a = page([0, 11]);
    const b = page([100, 111]);
    const c = page([200, 211]);
    recent.set(a.spans, a.texts);
    recent.set(b.spans, b.texts);
    expect(recent.get(a.spans)).toBe(a.texts); // a is now the most recently used
    recent.set(c.spans, c.texts); // 60 bytes past a budget of 50: b goes
    expect(recent.get(b.spans)).toBeUndefined();
    expect(recent.get(a.spans)).toBe(a.texts);
    expect(recent.get(c.spans)).toBe(c.texts);
    const huge = page([300, 311, 322, 333, 344, 355, 366]);
    recent.set(huge.spans, huge.texts);
    expect(recent.get(huge.spans)).toBeUndefined();
    expect(recent.get(c.spans)).toBe(c.texts);
  });

  it('keeps one entry per page when the same page is kept again', () => {
    const recent = new RecentPages(40);
    const a = page([0, 11]);
    recent.set(a.spans, a.texts);
    const again = page([0, 11]);
    recent.set(again.spans, again.texts);
    const b = page([100, 111]);
    recent.set(b.spans, b.texts); // 40 bytes in all only if the first entry was replaced, not counted twice
    expect(recent.get(again.spans)).toBe(again.texts);
    expect(recent.get(b.spans)).toBe(b.texts);
  });
});
