import { classicDashboards } from '../../src/kinds/classic-dashboards.js';
import { buildPlan, type PlanChange } from '../../src/plan/build-plan.js';
import type { Dashboard, LiveDashboard } from '../../src/schema/dashboard.js';

/** The id the one file and the one live dashboard share in planOne. */
export const PLAN_ONE_ID = '11111111-1111-4111-8111-111111111111';
/** The ownership tag planOne plans with: a live dashboard without it is adopted. */
export const PLAN_ONE_TAG = 'managed-by:dashcd';

/** The change a plan makes for one file against the live dashboard of the same id (nothing owned, nothing ignored). */
export function planOne(live: LiveDashboard, body: Dashboard): PlanChange {
  const plan = buildPlan({
    desired: [{ id: PLAN_ONE_ID, file: 'a.yaml', name: body.dashboardMetadata.name, body }],
    live: new Map([[PLAN_ONE_ID, live]]),
    liveOwned: [],
    ownershipTag: PLAN_ONE_TAG,
    ignore: [],
    kind: classicDashboards,
    target: 't',
  });
  return plan.changes[0] as PlanChange;
}
