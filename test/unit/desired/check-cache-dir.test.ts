import { describe, expect, it } from 'vitest';
import { checkCacheDir } from '../../../src/desired/check-cache-file.js';

const exists = (): boolean => true;
const missing = (): boolean => false;

describe('checkCacheDir: where the check cache lives, or nowhere', () => {
  it('takes an absolute XDG_CACHE_HOME, else LOCALAPPDATA, before HOME', () => {
    expect(checkCacheDir({ XDG_CACHE_HOME: '/x', LOCALAPPDATA: '/l', HOME: '/h' }, exists)).toBe('/x/dashcd');
    expect(checkCacheDir({ XDG_CACHE_HOME: 'relative', LOCALAPPDATA: '/l', HOME: '/h' }, exists)).toBe('/l/dashcd');
    expect(checkCacheDir({ HOME: '/h' }, exists)).toBe('/h/.cache/dashcd');
  });

  it('caches nowhere under a HOME that is not there (a service account\'s /nonexistent), which it would create', () => {
    expect(checkCacheDir({ HOME: '/nonexistent' }, missing)).toBeUndefined();
    expect(checkCacheDir({ HOME: '/nonexistent' })).toBeUndefined();
    expect(checkCacheDir({ HOME: process.cwd() })).toBe(`${process.cwd()}/.cache/dashcd`);
  });

  it('caches nowhere without an absolute folder to cache in', () => {
    expect(checkCacheDir({}, exists)).toBeUndefined();
    expect(checkCacheDir({ HOME: 'relative' }, exists)).toBeUndefined();
  });
});
