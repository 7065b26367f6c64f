import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withoutTrailingSlashes } from '../../../src/lib/trailing-slashes.js';

describe('withoutTrailingSlashes', () => {
  it('drops every slash the text ends with, and nothing else', () => {
    expect(withoutTrailingSlashes('https://host/e/prod//')).toBe('https://host/e/prod');
    expect(withoutTrailingSlashes('https://host/e/prod')).toBe('https://host/e/prod');
    expect(withoutTrailingSlashes('/a//b/')).toBe('/a//b');
    expect(withoutTrailingSlashes('///')).toBe('');
    expect(withoutTrailingSlashes('')).toBe('');
  });

  it('gives what the regular expression it replaces gives', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('/', 'a', ':', '.') }), (text) => {
        expect(withoutTrailingSlashes(text)).toBe(text.replace(/\/+$/, ''));
      }),
    );
  });

  it('reads a committed URL of a million slashes before its last character at once (the RegExp tried every run)', () => {
    const url = `https://abc.live.dynatrace.com/${'/'.repeat(1_000_000)}x`;
    expect(withoutTrailingSlashes(url)).toBe(url);
    expect(withoutTrailingSlashes(`${url}${'/'.repeat(1_000_000)}`)).toBe(url);
  });
});
