import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DELETE, maxDeleteOf } from '../../../src/reconcile/plan-dashboards.js';

describe('the most deletions a pass may make', () => {
  it('is --max-delete when given as a number, whatever dashcd.yaml says', () => {
    expect(maxDeleteOf(2, 10)).toBe(2);
    expect(maxDeleteOf(20, undefined)).toBe(20);
    expect(maxDeleteOf(0, 3)).toBe(0);
  });

  it("is dashcd.yaml's maxDelete, else the default, without --max-delete", () => {
    expect(maxDeleteOf(undefined, 3)).toBe(3);
    expect(maxDeleteOf(undefined, undefined)).toBe(DEFAULT_MAX_DELETE);
  });

  it("under an operator's ceiling, is the file's value or the default, never past the ceiling", () => {
    expect(maxDeleteOf({ atMost: 2 }, undefined)).toBe(2);
    expect(maxDeleteOf({ atMost: 20 }, undefined)).toBe(DEFAULT_MAX_DELETE);
    expect(maxDeleteOf({ atMost: 20 }, 12)).toBe(12);
    expect(maxDeleteOf({ atMost: 2 }, 1)).toBe(1);
    expect(maxDeleteOf({ atMost: 2 }, 3)).toBe(2);
  });
});
