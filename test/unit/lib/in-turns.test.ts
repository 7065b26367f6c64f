import { describe, expect, it } from 'vitest';
import { completed, completedInTurns, TURN_SLICE_MS, type Steps } from '../../../src/lib/in-turns.js';

/** `n` steps, each advancing a fake clock by `stepMs`, recording the order of steps and of other callbacks. */
function* counted(n: number, log: string[], clock: { ms: number }, stepMs: number): Steps<number> {
  for (let i = 0; i < n; i++) {
    clock.ms += stepMs;
    log.push(`step ${i}`);
    yield;
  }
  return n;
}

describe('work in steps', () => {
  it('runs at once to its value', () => {
    const log: string[] = [];
    expect(completed(counted(3, log, { ms: 0 }, 5))).toBe(3);
    expect(log).toEqual(['step 0', 'step 1', 'step 2']);
  });

  it('in turns, lets the event loop in once a slice has run, not before', async () => {
    const log: string[] = [];
    const clock = { ms: 0 };
    // A callback queued now runs only when the steps give the event loop a turn.
    setImmediate(() => log.push('event loop'));
    expect(await completedInTurns(counted(6, log, clock, 7), 20, () => clock.ms)).toBe(6);
    // 7, 14, 21 ms: the turn comes after the third step; the next slice starts there.
    expect(log).toEqual(['step 0', 'step 1', 'step 2', 'event loop', 'step 3', 'step 4', 'step 5']);
  });

  it('in turns, gives one turn per slice, a slice ending once its time has run (at 20 ms exactly too)', async () => {
    const log: string[] = [];
    const clock = { ms: 100 };
    let done = false;
    let turns = 0;
    const tick = (): void => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    // 10 ms a step from 100: slices end at 120, 140 and 160, after steps 1, 3 and 5.
    await completedInTurns(counted(6, log, clock, 10), 20, () => clock.ms);
    done = true;
    expect(turns).toBe(3);
  });

  it('in turns, with no slice ever passed, never waits for the event loop', async () => {
    const log: string[] = [];
    setImmediate(() => log.push('event loop'));
    expect(await completedInTurns(counted(4, log, { ms: 0 }, 0), 20, () => 0)).toBe(4);
    expect(log).toEqual(['step 0', 'step 1', 'step 2', 'step 3']);
    expect(TURN_SLICE_MS).toBe(20);
  });
});
