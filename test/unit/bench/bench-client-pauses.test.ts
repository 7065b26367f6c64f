import { describe, expect, it } from 'vitest';
import { PauseCorrectedTimer, pausedWithin } from '../../../bench/lib/client-pauses.js';

describe('client pauses taken out of request timings', () => {
  it('counts only the part of each pause inside the span', () => {
    const span = { start: 10, end: 20 };
    expect(pausedWithin(span, [])).toBe(0);
    expect(pausedWithin(span, [{ start: 0, end: 5 }, { start: 25, end: 30 }])).toBe(0);
    expect(pausedWithin(span, [{ start: 12, end: 14 }, { start: 15, end: 16 }])).toBe(3);
    expect(pausedWithin(span, [{ start: 5, end: 12 }, { start: 18, end: 40 }])).toBe(4);
    expect(pausedWithin(span, [{ start: 0, end: 100 }])).toBe(10);
  });

  it('takes this process\'s own collections out of a span that had them, and nothing out of one that had none', async () => {
    const before = performance.now();
    const timer = new PauseCorrectedTimer();
    const start = performance.now();
    // Enough short-lived garbage to make the young generation collect several times.
    let garbage: Array<{ n: number }> = [];
    for (let i = 0; i < 3_000_000; i++) {
      garbage.push({ n: i });
      if (garbage.length === 10_000) garbage = [];
    }
    const end = performance.now();
    timer.record({ start, end });
    timer.record({ start: before - 1, end: before - 0.5 });
    const { ms, pausedRequests, pausedMs } = await timer.finish();
    expect(pausedRequests).toBe(1);
    expect(pausedMs).toBeGreaterThan(0);
    expect(ms[0]).toBeCloseTo(end - start - pausedMs, 6);
    expect(ms[1]).toBeCloseTo(0.5, 6);
  });
});
