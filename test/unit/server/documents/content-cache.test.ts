import { describe, expect, it } from 'vitest';
import { ContentCache } from '../../../../src/server/documents/content-cache.js';

const bytes = (size: number, fill = 1): Buffer => Buffer.alloc(size, fill);

describe('content cache', () => {
  it('keeps contents within its budget, dropping the least recently read first', () => {
    const cache = new ContentCache(30, 10);
    cache.admit('a', bytes(10));
    cache.admit('b', bytes(10));
    cache.admit('c', bytes(10));
    expect(cache.get('a')).toEqual(bytes(10));
    cache.admit('d', bytes(10));
    expect(['a', 'b', 'c', 'd'].map((file) => cache.get(file) !== undefined)).toEqual([true, false, true, true]);
  });

  it('never keeps a content over its entry limit, and forgets a dropped file', () => {
    const cache = new ContentCache(100, 10);
    cache.admit('large', bytes(11));
    expect(cache.get('large')).toBeUndefined();
    cache.admit('small', bytes(10));
    cache.drop('small');
    expect(cache.get('small')).toBeUndefined();
    // The dropped bytes no longer count: ten more files of the limit all fit.
    for (let i = 0; i < 10; i++) cache.admit(`f${i}`, bytes(10));
    expect(cache.get('f0')).toBeDefined();
  });

  it('a file admitted again replaces its bytes without counting them twice', () => {
    const cache = new ContentCache(20, 10);
    cache.admit('a', bytes(10, 1));
    cache.admit('a', bytes(10, 2));
    cache.admit('b', bytes(10));
    expect([cache.get('a'), cache.get('b')]).toEqual([bytes(10, 2), bytes(10)]);
  });
});
