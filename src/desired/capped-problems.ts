/** The most problems one file reports, as the service lists at most 100 violations of a body. */
export const MAX_FILE_PROBLEMS = 100;

/**
 * A file's first MAX_FILE_PROBLEMS problems, then one more saying how many were left out, made by `summary` at the
 * place of the first left out: a committed file of 140,000 bad tiles printed (and the daemon kept in its status) as
 * many lines, when the first hundred say what is wrong. The same array when it holds no more.
 */
export function cappedProblems<T>(problems: T[], summary: (more: number, first: T) => T): T[] {
  const first = problems[MAX_FILE_PROBLEMS];
  if (first === undefined) return problems;
  return [...problems.slice(0, MAX_FILE_PROBLEMS), summary(problems.length - MAX_FILE_PROBLEMS, first)];
}

/** The summary's words; `why` says why the rest is not listed. */
export function moreProblems(more: number, why = 'fix these first'): string {
  return `and ${more.toLocaleString('en-US')} more problem${more === 1 ? '' : 's'} in this file, not listed: ${why}`;
}

/**
 * How many problems a list stands for: a summary line (path '', the words of `moreProblems`) counts those it says
 * were left out, any other line one. "101 problems" for a file of 140,000 told a reader the wrong size of the job.
 */
export function problemTotal(problems: readonly { path: unknown; message: string }[]): number {
  let total = 0;
  for (const problem of problems) total += problem.path === '' ? (notListed(problem.message) ?? 1) : 1;
  return total;
}

function notListed(message: string): number | undefined {
  const match = /^and ([\d,]+) more problems? in this file, not listed: /.exec(message);
  return match === null ? undefined : Number((match[1] as string).replaceAll(',', ''));
}
