import type { ApiClient } from '../client/api-client.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { planDashboard, type CompareRules, type DesiredInput, type PlanChange } from '../plan/build-plan.js';
import { isWrittenText } from '../plan/written-text.js';
import { classicDashboards } from '../kinds/classic-dashboards.js';

export interface PlannedAgainstLive {
  /** One change per desired file, in the desired order. */
  changes: PlanChange[];
  /** Every live dashboard carrying the ownership tag: the prune candidates. */
  owned: { id: string; name: string; owner?: string }[];
}

/** Changes read and compared ahead of the plan (early-plans.ts): one for the same file, id and body, else undefined. */
export interface EarlyChanges {
  take(dashboard: DesiredInput): Promise<PlanChange | undefined> | undefined;
}

/**
 * Reads the live side and compares each desired file as its GET returns (bounded concurrency), plus the owned
 * list; a file `early` already read and compared (early-plans.ts) is not read again. A live dashboard is dropped
 * once compared, so a plan holds `concurrency` of them at a time instead of every one beside the desired state.
 */
export async function planAgainstLive(
  desired: readonly DesiredInput[],
  deps: { api: ApiClient; rules: CompareRules; concurrency: number; signal?: AbortSignal; withOwned: boolean; early?: EarlyChanges },
): Promise<PlannedAgainstLive> {
  const { api, rules, concurrency, signal, early } = deps;
  const plan = async (d: DesiredInput): Promise<PlanChange> => (await early?.take(d)) ?? readAndPlan(d, { api, rules, ...(signal ? { signal } : {}) });
  const [changes, owned] = await Promise.all([mapConcurrent(desired, concurrency, plan, signal), deps.withOwned ? classicDashboards.live(api).listOwned(rules.ownershipTag) : Promise.resolve([])]);
  // An aborted run leaves dashboards never read: a plan from it would call them new.
  signal?.throwIfAborted();
  return { changes: changes as PlanChange[], owned };
}

/** One desired file against its live dashboard, read now; settled on the live text when that is what apply wrote. */
export async function readAndPlan(desired: DesiredInput, deps: { api: ApiClient; rules: CompareRules; signal?: AbortSignal }): Promise<PlanChange> {
  const { api, rules, signal } = deps;
  const live = await classicDashboards.live(api).getText(desired.id, signal ? { signal } : {});
  if (live !== undefined && desired.bodyJson !== undefined && isWrittenText(live.text, desired.bodyJson, rules.ownershipTag)) {
    return { action: 'unchanged', id: desired.id, name: desired.name, file: desired.file };
  }
  return planDashboard(desired, live?.parse(), rules);
}
