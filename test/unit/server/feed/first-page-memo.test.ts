import { describe, expect, it } from 'vitest';
import { FirstPageMemo } from '../../../../src/server/feed/first-page-memo.js';
import type { IndexPage, PageRequest } from '../../../../src/server/feed/index-query.js';

const FIRST: PageRequest = { filter: { from: 1, to: 9, eventType: 'SLOW_DISK', entityId: 'HOST-1' }, watermark: 40, limit: 150, countTotal: true };
const page = (slot: number): IndexPage => ({ slots: [slot], next: undefined, total: 1 });

describe('FirstPageMemo', () => {
  it('answers a first page asked again with the same query while the store is at the same generation', () => {
    const memo = new FirstPageMemo(4);
    const kept = page(7);
    memo.set(FIRST, 3, kept);
    expect(memo.get({ ...FIRST, filter: { ...FIRST.filter } }, 3)).toBe(kept);
  });

  it('misses once the store has been written to, and keeps nothing from before it', () => {
    const memo = new FirstPageMemo(4);
    memo.set(FIRST, 3, page(7));
    expect(memo.get(FIRST, 4)).toBeUndefined();
    memo.set({ ...FIRST, limit: 5 }, 4, page(8));
    // Back at generation 4 the old answer is gone, not merely hidden.
    expect(memo.get(FIRST, 4)).toBeUndefined();
    expect(memo.get({ ...FIRST, limit: 5 }, 4)).toEqual(page(8));
  });

  it('tells every field of the query apart', () => {
    const memo = new FirstPageMemo(16);
    memo.set(FIRST, 1, page(1));
    const others: PageRequest[] = [
      { ...FIRST, filter: { ...FIRST.filter, from: 2 } },
      { ...FIRST, filter: { ...FIRST.filter, to: 8 } },
      { ...FIRST, filter: { ...FIRST.filter, eventType: undefined } },
      { ...FIRST, filter: { ...FIRST.filter, entityId: undefined } },
      { ...FIRST, filter: { ...FIRST.filter, entityId: 'HOST-2' } },
      { ...FIRST, watermark: 41 },
      { ...FIRST, limit: 149 },
      { ...FIRST, countTotal: false },
    ];
    for (const other of others) expect(memo.get(other, 1), JSON.stringify(other)).toBeUndefined();
    // An entity id holding the separators of the key reads as itself, not as other fields.
    const tricky: PageRequest = { ...FIRST, filter: { from: 1, to: 9, eventType: undefined, entityId: '"SLOW_DISK","HOST-1"' } };
    expect(memo.get(tricky, 1)).toBeUndefined();
  });

  it('never keeps or answers a continuation page', () => {
    const memo = new FirstPageMemo(4);
    const next: PageRequest = { ...FIRST, after: { start: 5, hi: 0, lo: 1 } };
    memo.set(next, 1, page(3));
    expect(memo.get(next, 1)).toBeUndefined();
    expect(memo.get(FIRST, 1)).toBeUndefined();
    memo.set(FIRST, 1, page(4));
    expect(memo.get(next, 1)).toBeUndefined();
  });

  it('lets the least lately asked page go when full', () => {
    const memo = new FirstPageMemo(2);
    const a = { ...FIRST, limit: 1 };
    const b = { ...FIRST, limit: 2 };
    const c = { ...FIRST, limit: 3 };
    memo.set(a, 1, page(1));
    memo.set(b, 1, page(2));
    expect(memo.get(a, 1)).toEqual(page(1)); // asked: b is now the oldest
    memo.set(c, 1, page(3));
    expect(memo.get(b, 1)).toBeUndefined();
    expect(memo.get(a, 1)).toEqual(page(1));
    expect(memo.get(c, 1)).toEqual(page(3));
    memo.set(c, 1, page(4)); // set again: replaced, not added twice
    expect(memo.get(a, 1)).toEqual(page(1));
    expect(memo.get(c, 1)).toEqual(page(4));
  });

  it('takes no room for a page asked for and not kept', () => {
    const memo = new FirstPageMemo(2);
    const a = { ...FIRST, limit: 1 };
    memo.set(a, 1, page(1));
    for (const limit of [2, 3, 4]) expect(memo.get({ ...FIRST, limit }, 1)).toBeUndefined();
    memo.set({ ...FIRST, limit: 5 }, 1, page(5));
    expect(memo.get(a, 1)).toEqual(page(1));
  });
});
