import { classicDashboards } from '../kinds/classic-dashboards.js';
import type { CompareRules } from '../plan/build-plan.js';

/** dashcd.yaml's ownership tag and ignored paths, as the rules a plan compares the classic dashboard kind under. */
export function compareRules(config: { readonly ownershipTag: string; readonly ignore: readonly string[] }): CompareRules {
  return { ownershipTag: config.ownershipTag, ignore: config.ignore, kind: classicDashboards };
}
