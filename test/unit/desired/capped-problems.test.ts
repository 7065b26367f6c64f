import { describe, expect, it } from 'vitest';
import { cappedProblems, MAX_FILE_PROBLEMS, moreProblems, problemTotal } from '../../../src/desired/capped-problems.js';
import { pushAll } from '../../../src/lib/push-all.js';

describe("a file's problems, capped", () => {
  const summary = (more: number, first: number): number => -(more * 1000 + first);

  it('are all of them up to the cap, the same list', () => {
    const exactly = numbers(MAX_FILE_PROBLEMS);
    expect(cappedProblems(exactly, summary)).toBe(exactly);
    expect(cappedProblems([], summary)).toEqual([]);
  });

  it('past it, the first hundred and one made by the summary from how many more and the first left out', () => {
    expect(MAX_FILE_PROBLEMS).toBe(100);
    const capped = cappedProblems(numbers(140_000), summary);
    expect(capped).toHaveLength(101);
    expect(capped.slice(0, 100)).toEqual(numbers(100));
    expect(capped[100]).toBe(-(139_900 * 1000 + 100));
    expect(cappedProblems(numbers(101), summary).at(-1)).toBe(-(1 * 1000 + 100));
  });

  it('say how many more, in the singular too', () => {
    expect(moreProblems(1)).toBe('and 1 more problem in this file, not listed: fix these first');
    expect(moreProblems(139_900)).toBe('and 139,900 more problems in this file, not listed: fix these first');
  });
});

describe('problemTotal', () => {
  const line = (message: string, path: unknown = 'tiles[0]') => ({ path, message });
  it('counts a line one, and a summary line the problems it says were left out', () => {
    expect(problemTotal([])).toBe(0);
    expect(problemTotal([line('a'), line('b')])).toBe(2);
    expect(problemTotal([line('a'), line(moreProblems(139_900), '')])).toBe(139_901);
    expect(problemTotal([line(moreProblems(1, 'another reason'), '')])).toBe(1);
    expect(problemTotal([line('a'), line(moreProblems(1), '')])).toBe(2);
    expect(problemTotal([line(moreProblems(2_000_000, 'why'), '')])).toBe(2_000_000);
  });

  it('counts one for a line that only reads like a summary: at a member, or in other words', () => {
    expect(problemTotal([line(moreProblems(7))])).toBe(1);
    expect(problemTotal([line(moreProblems(7), [])])).toBe(1);
    expect(problemTotal([line('and 7 more problems in this folder, not listed: x', '')])).toBe(1);
    expect(problemTotal([line(` ${moreProblems(7)}`, '')])).toBe(1);
    expect(problemTotal([line('and 7 more problems in this file, not listed', '')])).toBe(1);
  });
});

describe('pushAll', () => {
  it('appends more items than a spread can pass as arguments', () => {
    const target = [-1];
    pushAll(target, numbers(200_000));
    expect(target).toHaveLength(200_001);
    expect([target[0], target[1], target.at(-1)]).toEqual([-1, 0, 199_999]);
  });
});

function numbers(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
