import type { ComparedKind } from '../plan/build-plan.js';
import { withoutOwnershipTag } from '../dashboards/ownership.js';
import { toDashboardYaml } from '../desired/dashboard-yaml.js';
import { once } from '../lib/once.js';
import { answeredAnotherId, pullItems, type PullCommonOptions, type PullOutcome } from './pull-items.js';

export type { PullOutcome } from './pull-items.js';

export interface PullOptions extends PullCommonOptions {
  /** The kind pulled dashboards are compared as: a file's and its live dashboard's compared forms, the ownership mark. */
  kind: ComparedKind;
}

/** Writes live classic dashboards as YAML files (pull-items.ts: which file, when it is replaced, adopting). */
export async function pullDashboards(options: PullOptions): Promise<PullOutcome[]> {
  const { api, kind, ownershipTag } = options;
  return pullItems(options, {
    kind: undefined,
    compared: kind,
    async read(id, written) {
      const live = await api.dashboards.get(id);
      if (!live) return undefined;
      const other = live.id == null ? undefined : answeredAnotherId(id, live.id);
      if (other) return other;
      const pulled = withoutOwnershipTag(live, ownershipTag);
      return { live, id, name: pulled.dashboardMetadata.name, value: pulled, fileText: once(() => toDashboardYaml(written(pulled))) };
    },
    async adopt(change) {
      if (change.kind === undefined) await api.dashboards.put(change.id, change.desired);
    },
  });
}
