import { describe, expect, it } from 'vitest';
import { cappedProblems, MAX_FILE_PROBLEMS, moreProblems } from '../../../src/desired/capped-problems.js';
import type { Problem } from '../../../src/desired/dashboard-rules.js';
import type { PackedCheck } from '../../../src/desired/packed-check.js';
import { FileOrderBudget, MAX_LOAD_PROBLEMS, ProblemBudget } from '../../../src/desired/problem-budget.js';

const problem = (i: number): Problem => ({ line: i + 1, col: 3, path: `tiles[${i}]`, message: `problem ${i}` });
const summarized = (more: number, first: Problem): Problem => ({ line: first.line, col: first.col, path: '', message: moreProblems(more) });
/** A file's problems as a check lists them: at most MAX_FILE_PROBLEMS and a summary line. */
const listed = (n: number): Problem[] => cappedProblems(Array.from({ length: n }, (_, i) => problem(i)), summarized);
const failing = (n: number, warnings?: number): PackedCheck => ({ ok: false, problems: listed(n), ...(warnings === undefined ? {} : { warnings: listed(warnings) }) });
const valid = (warnings?: number): PackedCheck => ({ ok: true, fileId: undefined, name: 'D', hasEnvironmentOverrides: false, bodyJson: '{}', ...(warnings === undefined ? {} : { warnings: listed(warnings) }) });
const why = (max: number): string => `the folder has over ${max.toLocaleString('en-US')} problems, so each file lists only its first`;

describe('a load’s problem budget', () => {
  it('is ten thousand problems', () => {
    expect(MAX_LOAD_PROBLEMS).toBe(10_000);
    const budget = new ProblemBudget();
    const check = failing(100);
    for (let i = 0; i < 100; i++) expect(budget.keep(check)).toBe(check);
    expect(budget.spent).toBe(false);
    const one = failing(1);
    expect(budget.keep(one)).toBe(one);
    expect(budget.spent).toBe(true);
    expect(budget.final(failing(3))).toMatchObject({ problems: [problem(0), { message: moreProblems(2, why(10_000)) }] });
  });

  it('holds every check whole while the problems and warnings listed are within it', () => {
    const budget = new ProblemBudget(10);
    const checks = [failing(4), valid(3), failing(2, 1)];
    for (const check of checks) expect(budget.keep(check)).toBe(check);
    expect(budget.spent).toBe(false);
    for (const check of checks) expect(budget.final(check)).toBe(check);
  });

  it('past it, holds a file’s first problem and first warning, each with a line counting the rest, at the second’s place', () => {
    const budget = new ProblemBudget(10);
    const first = failing(10);
    expect(budget.keep(first)).toBe(first);
    const kept = budget.keep(failing(3, 2));
    expect(budget.spent).toBe(true);
    expect(kept).toEqual({
      ok: false,
      problems: [problem(0), { line: 2, col: 3, path: '', message: moreProblems(2, why(10)) }],
      warnings: [problem(0), { line: 2, col: 3, path: '', message: moreProblems(1, why(10)) }],
    });
    expect(budget.keep(valid(2))).toEqual({ ...valid(), warnings: [problem(0), { line: 2, col: 3, path: '', message: moreProblems(1, why(10)) }] });
  });

  it('counts the problems a file’s summary line left out', () => {
    const budget = new ProblemBudget(0);
    expect(budget.keep(failing(140_000))).toMatchObject({ problems: [problem(0), { message: moreProblems(139_999, why(0)) }] });
    expect(budget.keep(failing(MAX_FILE_PROBLEMS + 1))).toMatchObject({ problems: [problem(0), { message: moreProblems(MAX_FILE_PROBLEMS, why(0)) }] });
  });

  it('leaves a check of one problem, or of none, as it is', () => {
    const budget = new ProblemBudget(0);
    const checks = [failing(1), failing(1, 1), valid(), valid(1), failing(0)];
    for (const check of checks) expect(budget.keep(check)).toBe(check);
  });

  it('once spent, shortens at the end the checks it held whole, and what it shortened it leaves as it was', () => {
    const budget = new ProblemBudget(5);
    const early = failing(5);
    expect(budget.keep(early)).toBe(early);
    const late = budget.keep(failing(4));
    expect(budget.final(early)).toEqual({ ok: false, problems: [problem(0), { line: 2, col: 3, path: '', message: moreProblems(4, why(5)) }] });
    expect(budget.final(late)).toEqual(late);
    expect(late).toEqual({ ok: false, problems: [problem(0), { line: 2, col: 3, path: '', message: moreProblems(3, why(5)) }] });
    expect(budget.final(budget.final(early))).toEqual(budget.final(early));
  });
});

describe('a budget spent in file order', () => {
  const line = (more: number, why: string | undefined): string => `+${more}${why === undefined ? '' : ` (${why})`}`;
  const items = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `p${from + i}`);

  it('lists each file’s first hundred and a line for the rest while within it, nothing for a file without problems', () => {
    const budget = new FileOrderBudget(1_000);
    expect(budget.list([], line)).toEqual([]);
    expect(budget.list(items(3), line)).toEqual(items(3));
    expect(budget.list(items(140), line)).toEqual([...items(100), '+40']);
  });

  it('past it, each later file’s first and a line saying why, a file of one problem as it is', () => {
    const budget = new FileOrderBudget(5);
    expect(budget.list(items(4), line)).toEqual(items(4));
    expect(budget.list(items(3, 10), line)).toEqual(items(3, 10));
    expect(budget.list(items(3, 20), line)).toEqual(['p20', '+2 (the folder has over 5 problems, so each file lists only its first)']);
    expect(budget.list(items(1, 30), line)).toEqual(['p30']);
    expect(budget.list(items(250, 40), line)).toEqual(['p40', '+249 (the folder has over 5 problems, so each file lists only its first)']);
  });

  it('is spent once exactly its number of lines is listed; a file without problems lists nothing after as before', () => {
    const budget = new FileOrderBudget(5);
    expect(budget.list(items(5), line)).toEqual(items(5));
    expect(budget.list(items(2, 10), line)).toEqual(['p10', '+1 (the folder has over 5 problems, so each file lists only its first)']);
    expect(budget.list([], line)).toEqual([]);
  });

  it('is ten thousand lines by default', () => {
    const budget = new FileOrderBudget();
    for (let i = 0; i < 99; i++) budget.list(items(101), line);
    expect(budget.list(items(120), line)).toHaveLength(101);
    expect(budget.list(items(120), line)).toEqual(['p0', `+119 (the folder has over ${MAX_LOAD_PROBLEMS.toLocaleString('en-US')} problems, so each file lists only its first)`]);
  });
});
