import { describe, expect, it } from 'vitest';
import { chanceApartUnchanged, judgeChange, pairedRatios, SAME_WITHIN } from '../../../bench/lib/change-verdict.js';
import { summarize } from '../../../bench/lib/stats.js';

const s = (...runs: number[]) => summarize(runs);

describe('judgeChange', () => {
  it('is "same" within SAME_WITHIN either way, whatever the spread', () => {
    expect(SAME_WITHIN).toBe(0.05);
    expect(judgeChange('lower', s(100), s(104.9))).toEqual({ factor: 104.9 / 100, direction: 'same' });
    expect(judgeChange('lower', s(100), s(95.1))?.direction).toBe('same');
    expect(judgeChange('higher', s(1, 100, 200), s(1, 104, 200))?.direction).toBe('same');
  });

  it('takes the row\'s direction: higher is better for a rate, lower for a time', () => {
    expect(judgeChange('higher', s(100), s(120))).toEqual({ factor: 1.2, direction: 'better', evidence: 'one value' });
    expect(judgeChange('lower', s(100), s(120))).toEqual({ factor: 1.2, direction: 'worse', evidence: 'one value' });
    expect(judgeChange('higher', s(100), s(80))).toMatchObject({ direction: 'worse' });
    expect(judgeChange('lower', s(100), s(80))).toMatchObject({ direction: 'better' });
    expect(judgeChange('lower', s(100), s(105))).toMatchObject({ direction: 'worse' });
  });

  it('calls runs apart only when every run of now lies beyond every run of before, on the side the factor moved to', () => {
    expect(judgeChange('lower', s(10, 11, 12), s(13, 14, 15))).toMatchObject({ direction: 'worse', evidence: 'runs apart' });
    expect(judgeChange('lower', s(13, 14, 15), s(10, 11, 12))).toMatchObject({ direction: 'better', evidence: 'runs apart' });
    // touching ranges overlap
    expect(judgeChange('lower', s(10, 11, 12), s(12, 14, 15))).toMatchObject({ evidence: 'runs overlap' });
    expect(judgeChange('lower', s(12, 14, 15), s(10, 11, 12))).toMatchObject({ evidence: 'runs overlap' });
    expect(judgeChange('lower', s(3.3, 3.5, 4.4), s(3.9, 4.3, 4.3))).toMatchObject({ direction: 'worse', evidence: 'runs overlap' });
  });

  it('judges the side the given factor moved to, not the medians\' own', () => {
    // The medians alone say 1.4× (before's runs all below now's); the factor given says the change went the other way,
    // so the runs are not apart on that side.
    expect(judgeChange('lower', s(10, 10, 10), s(14, 14, 14), 0.5)).toEqual({ factor: 0.5, direction: 'better', evidence: 'runs overlap' });
    expect(judgeChange('lower', s(14, 14, 14), s(10, 10, 10), 2)).toEqual({ factor: 2, direction: 'worse', evidence: 'runs overlap' });
  });

  it('judges two runs each by their spread', () => {
    expect(judgeChange('lower', s(10, 12), s(13, 15))).toMatchObject({ evidence: 'runs apart' });
    expect(judgeChange('lower', s(13, 15), s(10, 12))).toMatchObject({ evidence: 'runs apart' });
  });

  it('says "one value" when either build has a single value', () => {
    expect(judgeChange('lower', s(10), s(13, 14, 15))).toMatchObject({ evidence: 'one value' });
    expect(judgeChange('lower', s(10, 11, 12), s(14))).toMatchObject({ evidence: 'one value' });
  });

  it('has nothing to say of a zero before or a factor that is not a number', () => {
    expect(judgeChange('lower', s(0), s(1))).toBeUndefined();
    expect(judgeChange('lower', s(1), s(Number.NaN))).toBeUndefined();
    expect(judgeChange('lower', s(1), s(1), Number.POSITIVE_INFINITY)).toBeUndefined();
  });
});

describe('pairedRatios', () => {
  it('divides each run by the baseline run beside it', () => {
    expect(pairedRatios(s(100, 90, 80), s(200, 180, 160))).toEqual(s(0.5, 0.5, 0.5));
    expect(pairedRatios(s(10, 30), s(20, 20)).runs).toEqual([0.5, 1.5]);
  });

  it('falls back to the ratio of the medians when the runs do not pair', () => {
    expect(pairedRatios(s(10, 30, 20), s(20, 20))).toEqual(s(1));
    // a zero baseline run: median 20 over median 10
    expect(pairedRatios(s(10, 30), s(20, 0))).toEqual(s(20 / 10));
    expect(pairedRatios(s(10), s(0)).runs).toEqual([Number.NaN]);
  });
});

describe('chanceApartUnchanged', () => {
  it('is the two splits of 2n runs that put one build\'s n lowest first, of (2n choose n)', () => {
    expect(chanceApartUnchanged(1)).toBe(1);
    expect(chanceApartUnchanged(2)).toBeCloseTo(2 / 6, 12);
    expect(chanceApartUnchanged(3)).toBeCloseTo(2 / 20, 12);
    expect(chanceApartUnchanged(5)).toBeCloseTo(2 / 252, 12);
  });
});
