import { Dashboard } from '../schema/dashboard.js';
import { withBodySizeCheck } from './body-size.js';
import { idProblem, isDashboardShaped, type FileCheck } from './dashboard-rules.js';
import { fastParseYaml, type FastParseResult } from './fast-yaml/fast-parse.js';
import { locateProblems } from './locate-problems.js';
import { findUnknownKeys } from './unknown-keys.js';
import { tooDeepPath } from './yaml-hazards.js';

/**
 * Checks one dashboard file. Fast path: the fast YAML parser plus the schema; when both accept, `yaml` never runs.
 * Anything else (a parse the fast path declines, any schema or id problem, an unknown key to warn about) goes
 * through `yaml` with source ranges, which both decides and locates. The fast parser's contract (same value as `yaml`, or decline) makes the result
 * independent of which path ran: `useFastPath: false` exists so tests can prove it. `fast`: the fast parse, when the
 * caller made it already (check-source.ts, which looks at the value to choose the checks).
 */
export function checkDashboardSource(source: string, { useFastPath = true, fast: parsed }: { useFastPath?: boolean; fast?: FastParseResult } = {}): FileCheck {
  if (!useFastPath) return withBodySizeCheck(locateProblems(source));
  const fast = parsed ?? fastParseYaml(source);
  // The fast parser declines anchors and aliases, so its value is no larger than its text allows.
  if (fast.ok && isDashboardShaped(fast.value) && isValidDashboard(fast.value)) return withBodySizeCheck({ ok: true, value: fast.value }, undefined, source.length);
  return withBodySizeCheck(locateProblems(source, fast.ok ? { value: fast.value } : undefined));
}

function isValidDashboard(value: Record<string, unknown>): boolean {
  const { success } = Dashboard.safeParse(value);
  return success && idProblem(value.id) === undefined && tooDeepPath(value) === undefined && findUnknownKeys(value).length === 0;
}
