import type { countOutcomes } from '../apply/apply-plan.js';
import type { PlanChange } from '../plan/build-plan.js';

/** What a pass did, as its "reconcile finished" line counts it (summed over the chunks of a chunked pass). */
export type PassTotals = ReturnType<typeof countOutcomes> & { unchanged: number; drift: number; rejected: number; invalid: number };

/**
 * Drift as RFC 6902 operations from live back to the file (what a revert writes), each with `live`: the value found
 * on the target that it replaces or removes. Values are whole, not abbreviated as in the plan text: the log is the
 * record of what someone changed by hand.
 */
export function driftPatch(change: Extract<PlanChange, { action: 'update' }>): Record<string, unknown>[] {
  return change.patch.map((op, i) => (op.op === 'add' ? { ...op } : { ...op, live: change.before[i] ?? null }));
}

/**
 * `text` as a string of its own. The YAML parser's strings (a dashboard's id among them) are slices of the file's
 * text, and V8 keeps a slice's whole parent alive: the ids kept between passes held every file's ~20 KB source
 * (200 MB at 10,000 dashboards). A JSON round trip builds a fresh string; an id costs microseconds to copy.
 */
export function ownCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

export function emptyTotals(): PassTotals {
  return { created: 0, adopted: 0, updated: 0, deleted: 0, failed: 0, unchanged: 0, drift: 0, rejected: 0, invalid: 0 };
}

export function addTotals(a: PassTotals, b: PassTotals): PassTotals {
  const sum = emptyTotals();
  for (const key of Object.keys(sum) as (keyof PassTotals)[]) sum[key] = a[key] + b[key];
  return sum;
}
