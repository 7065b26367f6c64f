import { cappedProblems, moreProblems, problemTotal } from './capped-problems.js';
import type { PackedCheck } from './packed-check.js';
import type { Problem } from './dashboard-rules.js';

/**
 * Problems and warnings one load of a folder lists in full. A commit of 20,000 files of a few hundred bad tiles each
 * (git stores one blob for them all: a push of a few kB) made `validate` and the daemon hold four million problems,
 * 4 GB, where one line per file says as much about what to fix first.
 */
export const MAX_LOAD_PROBLEMS = 10_000;


/**
 * Holds what a load keeps of each file's check as checks land, in any order: every problem until the load has listed
 * `max` (problems and warnings together), each file's first and how many more after that. Which files landed first
 * is a race between threads, so once the budget is spent `final` shortens every file alike: what a folder prints
 * depends on its files alone.
 */
export class ProblemBudget {
  private listed = 0;

  constructor(private readonly max: number = MAX_LOAD_PROBLEMS) {}

  /** Whether the load has more problems than it lists in full. */
  get spent(): boolean {
    return this.listed > this.max;
  }

  /** What to hold of a check that just landed. */
  keep(check: PackedCheck): PackedCheck {
    this.listed += (check.ok ? 0 : check.problems.length) + (check.warnings?.length ?? 0);
    return this.final(check);
  }

  /** What the load reports of a check it holds, once every check has landed. */
  final(check: PackedCheck): PackedCheck {
    if (!this.spent) return check;
    const why = overBudget(this.max);
    const warnings = check.warnings && firstOnly(check.warnings, why);
    const problems = check.ok ? undefined : firstOnly(check.problems, why);
    if (warnings === check.warnings && (check.ok || problems === check.problems)) return check;
    return { ...check, ...(problems ? { problems } : {}), ...(warnings ? { warnings } : {}) };
  }
}

/** A file's first problem and a line counting the rest (an equal list for one it made; the same list for one of one problem or none). */
function firstOnly(problems: Problem[], why: string): Problem[] {
  const [first, second] = problems;
  if (second === undefined) return problems;
  return [first as Problem, { line: second.line, col: second.col, path: '', message: moreProblems(problemTotal(problems) - 1, why) }];
}

/**
 * The same budget where files are checked one after another, in file order (the environments stage, on one thread):
 * each file lists its first MAX_FILE_PROBLEMS problems and a line for the rest until `max` are listed, its first and
 * a line for the rest after that. A commit of 6,000 files of one problem each, with environments declared, ran a
 * daemon out of memory, and one of 5,000-tile files listed every misspelt key of every tile, once per environment.
 */
export class FileOrderBudget {
  private listed = 0;

  constructor(private readonly max: number = MAX_LOAD_PROBLEMS) {}

  /** What to list of one file's problems; `summary` makes the line for `more` left out, saying `why` when given. */
  list<T>(problems: readonly T[], summary: (more: number, why: string | undefined) => T): T[] {
    const [first, second] = problems;
    if (first === undefined) return [];
    const shown =
      this.listed < this.max
        ? cappedProblems([...problems], (more) => summary(more, undefined))
        : second === undefined
          ? [first]
          : [first, summary(problems.length - 1, overBudget(this.max))];
    this.listed += shown.length;
    return shown;
  }
}

/** Why a file lists only its first problem, in both budgets' summary lines. */
function overBudget(max: number): string {
  return `the folder has over ${max.toLocaleString('en-US')} problems, so each file lists only its first`;
}
