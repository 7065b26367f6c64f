import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { closest, MAX_CANDIDATES, MAX_HINTED_LENGTH } from '../../../src/lib/closest.js';

/** Optimal string alignment over the whole table: what the banded distance must agree with wherever it answers. */
function fullDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

function referenceClosest(word: string, candidates: readonly string[], maxDistance: number): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  for (const candidate of candidates) {
    const distance = fullDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

const shortWord = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', '_'), maxLength: 9 });

describe('closest', () => {
  it('finds the nearest within the distance, ignoring case, a swap of neighbours being one edit, the first of equals', () => {
    expect(closest('tilefilter', ['tileFilter', 'tiles'])).toBe('tileFilter');
    expect(closest('widht', ['width', 'height'])).toBe('width');
    expect(closest('prdo', ['prod', 'dev'], 1)).toBe('prod');
    expect(closest('qa', ['dev'], 1)).toBeUndefined();
    expect(closest('abcd', ['abxy', 'abcx', 'abcy'])).toBe('abcx');
    expect(closest('kitten', ['sitting'], 3)).toBe('sitting');
    expect(closest('kitten', ['sitting'], 2)).toBeUndefined();
    expect(closest('', ['a', 'ab'])).toBe('a');
  });

  it('agrees with the distance over the whole table, for every word, candidates and limit', () => {
    fc.assert(
      fc.property(shortWord, fc.array(shortWord, { maxLength: 8 }), fc.integer({ min: 0, max: 4 }), (word, candidates, maxDistance) => {
        expect(closest(word, candidates, maxDistance)).toBe(referenceClosest(word, candidates, maxDistance));
      }),
      { numRuns: 3000 },
    );
  });

  it(`gives no hint for a word past ${MAX_HINTED_LENGTH} characters, and compares the first ${MAX_CANDIDATES} candidates`, () => {
    const long = 'a'.repeat(MAX_HINTED_LENGTH);
    expect(closest(long, [`${long}b`])).toBe(`${long}b`);
    expect(closest(`${long}a`, [`${long}a`])).toBeUndefined();
    const others = Array.from({ length: MAX_CANDIDATES }, (_, i) => `zz${i}zzzzzzzz`);
    expect(closest('width', [...others.slice(1), 'widht'])).toBe('widht');
    expect(closest('width', [...others, 'widht'])).toBeUndefined();
  });

  it('answers a committer-sized flood at once: a huge word, and many candidates near each other', () => {
    expect(closest('x'.repeat(1_000_000), ['x'.repeat(999_999)])).toBeUndefined();
    const near = Array.from({ length: 5000 }, (_, i) => `value_${String(i).padStart(50, '0')}`);
    for (const word of near.slice(0, 200)) expect(closest(`${word}z`, near)).toBe(word);
    // Names of one length sharing all but their last characters: every candidate runs its whole band.
    const same = Array.from({ length: 5000 }, (_, i) => `v_${String(i).padStart(60, '0')}`);
    for (let i = 0; i < 200; i++) {
      const word = `${(same[i] ?? '').slice(0, -1)}x`;
      expect(closest(word, same)).toBe(same.find((name) => name.slice(0, -1) === word.slice(0, -1)));
    }
  });
});
