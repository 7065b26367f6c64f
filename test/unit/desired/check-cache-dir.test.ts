import { describe, expect, it } from 'vitest';
import { checkCacheDir, writableOnlyByUs } from '../../../src/desired/check-cache-file.js';

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

describe('writableOnlyByUs', () => {
  it('trusts what this user owns and neither group nor others may write', () => {
    expect(writableOnlyByUs({ uid: 501, mode: 0o40700 }, { uid: 501 })).toBe(true);
    expect(writableOnlyByUs({ uid: 501, mode: 0o100644 }, { uid: 501 })).toBe(true);
    expect(writableOnlyByUs({ uid: 501, mode: 0o100660 }, { uid: 501 })).toBe(false);
    expect(writableOnlyByUs({ uid: 501, mode: 0o100602 }, { uid: 501 })).toBe(false);
    expect(writableOnlyByUs({ uid: 0, mode: 0o40700 }, { uid: 501 })).toBe(false);
  });

  it('trusts anything where there are no user ids (Windows)', () => {
    expect(writableOnlyByUs({ uid: 0, mode: 0o40777 }, { uid: undefined })).toBe(true);
  });
});
