import { describe, expect, it } from 'vitest';
import { ReloadSchedule, monotonicMs } from '../../../src/lib/reload-schedule.js';

describe('ReloadSchedule', () => {
  it('has the first check due, whatever the clock reads', () => {
    for (const start of [0, -5_000, 1e12]) expect(new ReloadSchedule(250, () => start).due()).toBe(true);
  });

  it('after a check, is due again once the interval has elapsed, not a millisecond before', () => {
    let elapsed = 1_000;
    const schedule = new ReloadSchedule(250, () => elapsed);
    schedule.checked();
    expect(schedule.due()).toBe(false);
    elapsed = 1_249.9;
    expect(schedule.due()).toBe(false);
    elapsed = 1_250;
    expect(schedule.due()).toBe(true);
    elapsed = 90_000;
    expect(schedule.due()).toBe(true);
  });

  it('counts only checks made, not questions asked: the interval runs from the last check', () => {
    let elapsed = 0;
    const schedule = new ReloadSchedule(100, () => elapsed);
    schedule.checked();
    elapsed = 100;
    expect(schedule.due()).toBe(true);
    expect(schedule.due()).toBe(true);
    elapsed = 150;
    schedule.checked();
    elapsed = 249;
    expect(schedule.due()).toBe(false);
    elapsed = 250;
    expect(schedule.due()).toBe(true);
  });

  it('measures on the monotonic clock by default: a check made now is not due again at once, and is once the interval has passed', async () => {
    const schedule = new ReloadSchedule(100);
    const start = monotonicMs();
    schedule.checked();
    expect(schedule.due()).toBe(false);
    await expect.poll(() => schedule.due(), { timeout: 5_000, interval: 5 }).toBe(true);
    expect(monotonicMs() - start).toBeGreaterThanOrEqual(100);
  });

  it('reads the monotonic clock from performance.now', () => {
    const before = performance.now();
    const reading = monotonicMs();
    expect(reading).toBeGreaterThanOrEqual(before);
    expect(reading).toBeLessThanOrEqual(performance.now());
  });
});
