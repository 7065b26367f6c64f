import { parsePointer, pointerProblem, removePointer } from '../plan/json-pointer.js';
import { isJsonObject, sortKeysInPlace, toSortedJsonValue, type JsonObject, type JsonValue } from '../plan/json-value.js';
import { fillServiceDefaults, sortSetMembers } from './service-defaults.js';

export interface NormalizeOptions {
  /** JSON Pointers, `*` matching any array index or key, from `dashcd.yaml`; applied to the normalised form. */
  ignore: readonly string[];
}

/**
 * THE definition of "equal" for dashboards: plan, apply and pull all compare `normalizeForCompare(a)` with
 * `normalizeForCompare(b)`, and a plan's patch is the difference of two normalised values. Two dashboards that
 * differ only in
 * - what the service owns: `id`, `metadata`, `dashboardMetadata.popularity`, `dashboardMetadata.sharingDetails`
 *   (dropped from the model in 1.208, so the service no longer keeps it) and `tiles[].metricExpressions` (derived by
 *   the service from `queries`);
 * - key order, or the order of set-like arrays (tags, dynamic filters, filter criteria);
 * - explicit `null` versus an absent member, or an empty object/array member versus an absent one;
 * - a member absent on one side and holding the service's read-side default on the other (service-defaults.ts);
 * - anything an ignore pointer matches
 * normalise to equal values. The result is plain JSON with keys sorted at every depth (so patches come out in one
 * order); the input is never modified.
 */
export function normalizeForCompare(dashboard: unknown, options: NormalizeOptions): JsonValue {
  // The copy already has sorted keys and no null members; only objects that gain defaults are re-sorted below.
  const json = toSortedJsonValue(dashboard) ?? null;
  if (!isJsonObject(json)) return json;
  dropServerOwned(json);
  fillServiceDefaults(json);
  dropEmptyMembers(json);
  sortSetMembers(json);
  const sorted = sortKeysInPlace(json);
  if (options.ignore.length === 0) return sorted;
  for (const pointer of options.ignore) {
    // project-config reports bad pointers; one that slips through here must not remove the wrong thing.
    if (pointerProblem(pointer) === undefined) removePointer(sorted, parsePointer(pointer));
  }
  dropEmptyMembers(sorted);
  return sorted;
}

function dropServerOwned(dashboard: JsonObject): void {
  delete dashboard.id;
  delete dashboard.metadata;
  const metadata = dashboard.dashboardMetadata;
  if (isJsonObject(metadata)) {
    delete metadata.popularity;
    delete metadata.sharingDetails;
  }
  const tiles = dashboard.tiles;
  if (!Array.isArray(tiles)) return;
  for (const tile of tiles) if (isJsonObject(tile)) delete tile.metricExpressions;
}

/** Bottom-up, so a member that becomes empty once its own empty members are gone is dropped too. */
function dropEmptyMembers(value: JsonValue): void {
  if (Array.isArray(value)) {
    for (const item of value) dropEmptyMembers(item);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const member = value[key] as JsonValue;
      dropEmptyMembers(member);
      if (isEmptyContainer(member)) delete value[key];
    }
  }
}

function isEmptyContainer(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isJsonObject(value) && Object.keys(value).length === 0;
}
