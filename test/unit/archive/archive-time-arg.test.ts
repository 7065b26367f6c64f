import { describe, expect, it } from 'vitest';
import { parseDuration, parseTimeArg } from '../../../src/archive/time-arg.js';

const NOW = Date.UTC(2024, 4, 15, 12, 0, 0);

describe('parseTimeArg', () => {
  it.each([
    ['7d', NOW - 7 * 86_400_000],
    ['12h', NOW - 12 * 3_600_000],
    ['30m', NOW - 30 * 60_000],
    ['90s', NOW - 90_000],
    ['2w', NOW - 14 * 86_400_000],
    ['1.5h', NOW - 5_400_000],
  ])('reads the relative form %s as that long before now', (text, expected) => {
    expect(parseTimeArg(text, NOW)).toBe(expected);
  });

  it('refuses epoch milliseconds past the safe integers, which cannot be exact', () => {
    expect(() => parseTimeArg('99999999999999999999', NOW)).toThrow(/is not a time/);
  });

  it('reads epoch milliseconds as given', () => {
    expect(parseTimeArg('1700000000000', NOW)).toBe(1_700_000_000_000);
    expect(parseTimeArg(' 0 ', NOW)).toBe(0);
    expect(parseTimeArg('100000000000', NOW)).toBe(100_000_000_000);
    // A count without its unit (`--since 30`) walked the feed from 1970; epoch seconds landed in 1970 too.
    expect(() => parseTimeArg('30', NOW)).toThrow("'30' is not a time: a bare number is epoch milliseconds (1700000000000), and 30 is in 1970 — for 30 days back write 30d");
    // Each hint one that works: days back without a sign, epoch seconds as milliseconds.
    expect(() => parseTimeArg('-30', NOW)).toThrow(/— for 30 days back write 30d$/);
    expect(() => parseTimeArg('99999999', NOW)).toThrow(/for 99999999 days back write 99999999d$/);
    expect(() => parseTimeArg('100000000', NOW)).toThrow(/is in 1970 — epoch seconds\? write 100000000000$/);
    expect(() => parseTimeArg('1700000000', NOW)).toThrow(/epoch seconds\? write 1700000000000$/);
    // The year it names is the real one, and seconds are offered only where they make a plausible time.
    expect(() => parseTimeArg('99999999999', NOW)).toThrow(/and 99999999999 is in 1973 — write a date \(2024-05-01\) or a span back from now \(30d\)$/);
    expect(() => parseTimeArg('-30', NOW)).toThrow(/and -30 is in 1969 — /);
  });

  it('reads an ISO date as UTC midnight, like the partitions', () => {
    expect(parseTimeArg('2024-05-01', NOW)).toBe(Date.UTC(2024, 4, 1));
  });

  it('reads now, today and yesterday (UTC days; as an end bound, through the day)', () => {
    const midnight = Date.UTC(2024, 4, 15);
    expect(parseTimeArg('now', NOW)).toBe(NOW);
    expect(parseTimeArg('now', NOW, 'end')).toBe(NOW);
    expect(parseTimeArg('today', NOW)).toBe(midnight);
    expect(parseTimeArg('Today', NOW, 'end')).toBe(midnight + 86_400_000 - 1);
    expect(parseTimeArg('yesterday', NOW)).toBe(midnight - 86_400_000);
    expect(parseTimeArg('yesterday', NOW, 'end')).toBe(midnight - 1);
  });

  it('reads a date and time separated by a space, as people type it, exactly at either end', () => {
    expect(parseTimeArg('2026-11-22 10:00', NOW)).toBe(Date.UTC(2026, 10, 22, 10));
    expect(parseTimeArg('2026-11-22 10:00', NOW, 'end')).toBe(Date.UTC(2026, 10, 22, 10));
    expect(parseTimeArg('2026-11-22 10:00:30+01:00', NOW)).toBe(Date.UTC(2026, 10, 22, 9, 0, 30));
    expect(() => parseTimeArg('2026-11-22  10:00', NOW)).toThrow(/not a time/);
  });

  it('reads an ISO date-time, as UTC when it has no offset', () => {
    expect(parseTimeArg('2024-05-01T12:30:00Z', NOW)).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseTimeArg('2024-05-01T12:30', NOW)).toBe(Date.UTC(2024, 4, 1, 12, 30));
    expect(parseTimeArg('2024-05-01T12:30:00.250+02:00', NOW)).toBe(Date.UTC(2024, 4, 1, 10, 30, 0, 250));
  });

  it('reads a bare ISO date as an end bound through that whole day: its last millisecond, before the next UTC midnight', () => {
    expect(parseTimeArg('2026-11-18', NOW, 'end')).toBe(Date.UTC(2026, 10, 19) - 1);
    expect(parseTimeArg('2024-02-29', NOW, 'end')).toBe(Date.UTC(2024, 2, 1) - 1);
    expect(parseTimeArg('2026-11-18', NOW, 'start')).toBe(Date.UTC(2026, 10, 18));
  });

  it('keeps date-times, epoch ms and relative forms exact as an end bound', () => {
    expect(parseTimeArg('2026-11-18T00:00:00Z', NOW, 'end')).toBe(Date.UTC(2026, 10, 18));
    expect(parseTimeArg('2026-11-18T12:30', NOW, 'end')).toBe(Date.UTC(2026, 10, 18, 12, 30));
    expect(parseTimeArg('1700000000000', NOW, 'end')).toBe(1_700_000_000_000);
    expect(parseTimeArg('7d', NOW, 'end')).toBe(NOW - 7 * 86_400_000);
  });

  it.each(['last week', '7 days', '2024-02-30', '2024-13-01', '2024-05-01 25:00', '12x', '', '1e3'])('rejects %j with a message naming the accepted forms', (text) => {
    expect(() => parseTimeArg(text, NOW)).toThrow(/is not a time: use now, today, yesterday, 7d, 12h or 30m/);
  });
});

describe('parseDuration', () => {
  it('reads durations and nothing else', () => {
    expect(parseDuration('500ms')).toBe(500);
    expect(parseDuration('60s')).toBe(60_000);
    expect(parseDuration('60')).toBeUndefined();
    expect(parseDuration('-5m')).toBeUndefined();
    expect(parseDuration('30min')).toBeUndefined();
    expect(parseDuration('1.25h')).toBe(4_500_000);
    expect(parseDuration(' 90s ')).toBe(90_000);
  });
});
