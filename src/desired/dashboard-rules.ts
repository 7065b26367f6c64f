import type { z } from 'zod';
import { parseDashboardId } from '../schema/ids.js';
import { quoted } from '../lib/quoted.js';

/** One problem in one file; `line`/`col` are 1-based, `path` is `tiles[3].bounds` style or `''` for the file. */
export interface Problem {
  line: number;
  col: number;
  path: string;
  message: string;
}

/**
 * What a file's text alone decides (no path, no other file), so it can be computed on a worker thread and cached
 * by content hash. Plain data: it crosses `postMessage` by structured clone. `warnings` (unknown keys; absent when
 * there are none) do not make a file invalid unless the caller is strict.
 */
export type FileCheck =
  | { ok: true; value: Record<string, unknown>; warnings?: Problem[] }
  | { ok: false; problems: Problem[]; warnings?: Problem[] };

export const NOT_A_DASHBOARD = 'not a dashboard: expected a mapping with dashboardMetadata and tiles';

/**
 * Why a parsed file is no dashboard. A saved plan (`plan --output json`) is named as one: Terraform users hand it to
 * apply, which here takes the dashboard files and plans again, writing only what differs.
 */
export function notADashboard(value: unknown): string {
  const plan = typeof value === 'object' && value !== null && Array.isArray((value as { changes?: unknown }).changes) && 'summary' in value;
  return plan ? 'a saved plan (plan --output json), not a dashboard: apply takes the dashboard files and plans them again' : NOT_A_DASHBOARD;
}

/** zod's "expected X, received undefined" becomes the `Required` users know from other validators. */
export const schemaErrorMap = (issue: z.core.$ZodRawIssue): string | undefined =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined;

export function isDashboardShaped(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    (Object.hasOwn(value, 'dashboardMetadata') || Object.hasOwn(value, 'tiles'))
  );
}

/** `id` absent, null or `""` means "derive it"; any other string must be a UUID. Non-strings are the schema's. */
export function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string' || id === '' || parseDashboardId(id) !== undefined) return undefined;
  return `Not a valid UUID: ${quoted(id)}; use the 8-4-4-4-12 hex form, or remove the id to derive one from the file path`;
}
