import type { DesiredResult } from './load-desired.js';

/**
 * Strictness (`--strict`, `strict: true` in dashcd.yaml): every warning is an error, and a file carrying one is
 * invalid like any other, so its dashboard is left out (the daemon keeps its live version).
 */
export function strictly(result: DesiredResult): DesiredResult {
  if (result.warnings.length === 0) return result;
  const invalid = new Set(result.warnings.map((w) => w.file));
  const diagnostics = [...result.diagnostics, ...result.warnings].sort(
    (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.col - b.col,
  );
  return { ...result, dashboards: result.dashboards.filter((d) => !invalid.has(d.file)), diagnostics, warnings: [] };
}
