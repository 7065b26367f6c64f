import type { ApiClient } from '../client/api-client.js';
import { mapConcurrent } from '../lib/concurrency.js';
import type { LiveDashboard } from '../schema/dashboard.js';

export interface LiveState {
  /** Full dashboards for the desired ids that exist on the target. */
  byId: Map<string, LiveDashboard>;
  /** Every live dashboard carrying the ownership tag: the prune candidates. */
  owned: { id: string; name: string; owner?: string }[];
}

/** Reads what the plan compares against: one GET per desired id (bounded concurrency) and the owned list. */
export async function readLive(
  ids: readonly string[],
  deps: { api: ApiClient; ownershipTag: string; concurrency: number; signal?: AbortSignal; withOwned: boolean },
): Promise<LiveState> {
  const { api, concurrency, signal } = deps;
  const [dashboards, stubs] = await Promise.all([
    mapConcurrent(ids, concurrency, (id) => api.dashboards.get(id), signal),
    deps.withOwned ? api.dashboards.list({ tags: [deps.ownershipTag] }) : Promise.resolve([]),
  ]);
  const byId = new Map<string, LiveDashboard>();
  dashboards.forEach((dashboard, i) => {
    if (dashboard) byId.set(ids[i] as string, dashboard);
  });
  const owned = stubs.map((stub) => ({
    id: stub.id,
    name: stub.name ?? '',
    ...(stub.owner ? { owner: stub.owner } : {}),
  }));
  return { byId, owned };
}
