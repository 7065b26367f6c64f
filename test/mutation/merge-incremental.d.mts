/** Stryker incremental files (mutation-testing-report-schema), oldest first, merged into one. */
export function mergeIncremental(reports: readonly object[]): object;
