import { KINDS } from '../kinds/kinds.js';
import type { CompareRules } from '../plan/build-plan.js';

/**
 * dashcd.yaml's ownership tag and ignored paths, as the rules a plan compares under: classic dashboards by their
 * kind, documents (platform dashboards and notebooks) by theirs. One tag marks both; ignore pointers apply to
 * either kind's compared form (a pointer naming what one kind does not have changes nothing in it).
 */
export function compareRules(config: { readonly ownershipTag: string; readonly ignore: readonly string[] }): CompareRules {
  const { ownershipTag, ignore } = config;
  return { ownershipTag, ignore, kind: KINDS.dashboard, documents: { ownershipTag, ignore, kind: KINDS.document } };
}
