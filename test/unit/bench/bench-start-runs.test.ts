import { describe, expect, it } from 'vitest';
import { startRunsContext } from '../../../bench/figures/events-page.js';

describe('bench server starts: enough runs for a verdict', () => {
  it('times at least 7 starts of each kind in a full run, more when --runs asks for more', () => {
    expect(startRunsContext({ runs: 3, smoke: false, seed: 1 })).toEqual({ runs: 7, smoke: false, seed: 1 });
    expect(startRunsContext({ runs: 9, smoke: false }).runs).toBe(9);
  });

  it('leaves a smoke run at its one run: it checks the harness, it measures nothing', () => {
    expect(startRunsContext({ runs: 1, smoke: true }).runs).toBe(1);
  });
});
