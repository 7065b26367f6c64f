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

/** The summary's words. */
export function moreProblems(more: number): string {
  return `and ${more.toLocaleString('en-US')} more problem${more === 1 ? '' : 's'} in this file, not listed: fix these first`;
}
