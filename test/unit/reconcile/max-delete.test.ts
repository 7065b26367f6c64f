import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DELETE, maxDeleteOf } from '../../../src/reconcile/plan-dashboards.js';

describe('the most deletions a pass may make', () => {
  it('is --max-delete when given as a number, whatever dashcd.yaml says', () => {
    expect(maxDeleteOf(2, 10)).toEqual({ maxDelete: 2, from: 'flag' });
    expect(maxDeleteOf(20, undefined)).toEqual({ maxDelete: 20, from: 'flag' });
    expect(maxDeleteOf(0, 3)).toEqual({ maxDelete: 0, from: 'flag' });
  });

  it("is dashcd.yaml's maxDelete, else the default, without --max-delete", () => {
    expect(maxDeleteOf(undefined, 3)).toEqual({ maxDelete: 3, from: 'file' });
    expect(maxDeleteOf(undefined, 0)).toEqual({ maxDelete: 0, from: 'file' });
    expect(maxDeleteOf(undefined, undefined)).toEqual({ maxDelete: DEFAULT_MAX_DELETE, from: 'default' });
  });

  it("under an operator's ceiling, is the file's value or the default, never past the ceiling", () => {
    expect(maxDeleteOf({ atMost: 2 }, undefined)).toEqual({ maxDelete: 2, from: 'ceiling' });
    expect(maxDeleteOf({ atMost: 20 }, undefined)).toEqual({ maxDelete: DEFAULT_MAX_DELETE, from: 'default' });
    expect(maxDeleteOf({ atMost: 20 }, 12)).toEqual({ maxDelete: 12, from: 'file' });
    expect(maxDeleteOf({ atMost: 2 }, 1)).toEqual({ maxDelete: 1, from: 'file' });
    expect(maxDeleteOf({ atMost: 2 }, 2)).toEqual({ maxDelete: 2, from: 'file' });
    expect(maxDeleteOf({ atMost: 2 }, 3)).toEqual({ maxDelete: 2, from: 'ceiling' });
  });
});
