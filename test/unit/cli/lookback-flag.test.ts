import { describe, expect, it } from 'vitest';
import { lookbackFlag, parseDuration } from '../../../src/cli/int-flag.js';
import { UsageError } from '../../../src/cli/exit-codes.js';

const NOW = Date.UTC(2026, 11, 4, 12, 0, 0, 5);
const since = (raw: string | undefined): unknown => lookbackFlag(raw === undefined ? {} : { since: raw }, 'since', NOW, '30d');

describe('a --since flag', () => {
  it('is a span back from each run’s now when written as one, else the instant it names', () => {
    expect(since('7d')).toEqual({ back: 7 * 86_400_000 });
    expect(since(' 2w ')).toEqual({ back: 14 * 86_400_000 });
    expect(since(undefined)).toEqual({ back: 30 * 86_400_000 });
    expect(since('2026-11-20')).toEqual({ from: Date.UTC(2026, 10, 20) });
    expect(since('2026-11-20T06:30:00Z')).toEqual({ from: Date.UTC(2026, 10, 20, 6, 30) });
    expect(since('1700000000000')).toEqual({ from: 1_700_000_000_000 });
    expect(since('today')).toEqual({ from: Date.UTC(2026, 11, 4) });
    expect(since('now')).toEqual({ from: NOW });
  });

  it('is refused in the future, and when it is no time', () => {
    expect(() => since('2027-01-01')).toThrow(new UsageError('--since 2027-01-01 is in the future'));
    expect(() => since('soon')).toThrow(/^--since: 'soon' is not a time/);
  });
});

describe('a duration flag’s value', () => {
  it('is bare milliseconds or a span with its unit', () => {
    expect(parseDuration('1500')).toBe(1500);
    expect(parseDuration(' 2.5 ')).toBe(3);
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('1w')).toBe(7 * 86_400_000);
    expect(parseDuration('5 m')).toBeUndefined();
    expect(parseDuration('-5s')).toBeUndefined();
  });
});
