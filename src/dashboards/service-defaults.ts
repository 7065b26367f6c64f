import { canonicalJson, compareCodeUnits, isJsonObject, type JsonObject, type JsonValue } from '../plan/json-value.js';

/*
 * What the real service returns on GET that a PUT may not have sent (docs/real-service-behaviour.md §2.3, after the
 * Terraform provider's diff suppression, and confirmed by what the 47 real exports in the corpus always carry). Filled on
 * BOTH sides of a comparison, only where a member is absent, so "absent" and "the default" compare equal and a real
 * environment shows no phantom diff. Runs after nulls are dropped, so explicit `null` counts as absent too.
 */

function ensure(node: JsonObject, key: string, value: JsonValue): void {
  if (!Object.hasOwn(node, key)) node[key] = value;
}

/** The object member `key`, created empty when absent; undefined when it holds something else (left as is). */
function ensureObject(node: JsonObject, key: string): JsonObject | undefined {
  ensure(node, key, {});
  const value = node[key];
  return isJsonObject(value) ? value : undefined;
}

function objectsIn(node: JsonObject | undefined, key: string): JsonObject[] {
  const value = node?.[key];
  return Array.isArray(value) ? value.filter(isJsonObject) : [];
}

function objectAt(node: JsonObject | undefined, key: string): JsonObject | undefined {
  const value = node?.[key];
  return isJsonObject(value) ? value : undefined;
}

export function fillServiceDefaults(dashboard: JsonObject): void {
  const metadata = objectAt(dashboard, 'dashboardMetadata');
  if (metadata) {
    ensure(metadata, 'shared', false);
    ensure(metadata, 'preset', false);
    ensure(metadata, 'hasConsistentColors', false);
    // "Default value is medium" (spec).
    ensure(metadata, 'tilesNameSize', 'medium');
  }
  for (const tile of objectsIn(dashboard, 'tiles')) fillTileDefaults(tile);
}

function fillTileDefaults(tile: JsonObject): void {
  ensure(tile, 'configured', true);
  ensure(tile, 'isAutoRefreshDisabled', false);
  // Real exports carry `"nameSize": ""` where the spec's default is null: both mean "not set".
  if (tile.nameSize === '') delete tile.nameSize;
  const tileType = tile.tileType;
  if ((tileType === 'DATA_EXPLORER' || tileType === 'DTAQL') && typeof tile.name === 'string') {
    ensure(tile, 'customName', tile.name);
  }
  if (tileType === 'DATA_EXPLORER') {
    const settings = ensureObject(tile, 'queriesSettings');
    if (settings) ensure(settings, 'resolution', '');
    for (const query of objectsIn(tile, 'queries')) {
      ensure(query, 'enabled', true);
      ensure(query, 'timeAggregation', 'DEFAULT');
      ensure(query, 'rate', 'NONE');
    }
  }
  if (tileType === 'DTAQL') {
    ensure(tile, 'query', '');
    ensure(tile, 'type', 'NOT_CONFIGURED');
  }
  if (dropsVisualizationConfig(tile)) {
    delete tile.visualizationConfig;
  } else if (tileType === 'DTAQL') {
    const visualization = ensureObject(tile, 'visualizationConfig');
    if (visualization) ensure(visualization, 'hasAxisBucketing', true);
  }
  const visualConfig = objectAt(tile, 'visualConfig');
  if (visualConfig) fillVisualConfigDefaults(visualConfig);
  const chartConfig = objectAt(objectAt(tile, 'filterConfig'), 'chartConfig');
  if (chartConfig) ensure(chartConfig, 'legendShown', true);
}

/**
 * The service does not keep `visualizationConfig` on a DTAQL pie chart or on a world map (§2.3, after the Terraform
 * provider), so whatever a file says there can never show up live: comparing it would be a diff apply cannot fix.
 */
function dropsVisualizationConfig(tile: JsonObject): boolean {
  return tile.tileType === 'APPLICATION_WORLDMAP' || (tile.tileType === 'DTAQL' && tile.type === 'PIE_CHART');
}

function fillVisualConfigDefaults(visualConfig: JsonObject): void {
  const heatmap = ensureObject(visualConfig, 'heatmapSettings');
  if (heatmap) ensure(heatmap, 'yAxis', 'VALUE');
  const honeycomb = ensureObject(visualConfig, 'honeycombSettings');
  if (honeycomb) {
    ensure(honeycomb, 'showHive', true);
    ensure(honeycomb, 'showLegend', true);
  }
  for (const rule of objectsIn(visualConfig, 'rules')) {
    const properties = ensureObject(rule, 'properties');
    if (properties) ensure(properties, 'color', 'DEFAULT');
  }
  for (const threshold of objectsIn(visualConfig, 'thresholds')) ensure(threshold, 'visible', true);
}

/**
 * Arrays the model defines as sets get one canonical order: tags and dynamic filters (`uniqueItems` in the spec),
 * and Data Explorer filter criteria and nested filters, whose order the service does not keep.
 */
export function sortSetMembers(dashboard: JsonObject): void {
  const metadata = objectAt(dashboard, 'dashboardMetadata');
  sortStringSet(metadata, 'tags');
  const dynamicFilters = objectAt(metadata, 'dynamicFilters');
  sortStringSet(dynamicFilters, 'filters');
  for (const tagFilter of objectsIn(dynamicFilters, 'genericTagFilters')) sortStringSet(tagFilter, 'entityTypes');
  for (const tile of objectsIn(dashboard, 'tiles')) {
    for (const query of objectsIn(tile, 'queries')) {
      const filterBy = objectAt(query, 'filterBy');
      if (filterBy) sortFilter(filterBy);
    }
  }
}

function sortStringSet(node: JsonObject | undefined, key: string): void {
  const value = node?.[key];
  if (!node || !Array.isArray(value) || !value.every((item) => typeof item === 'string')) return;
  node[key] = [...new Set(value as string[])].sort(compareCodeUnits);
}

function sortFilter(filter: JsonObject): void {
  for (const nested of objectsIn(filter, 'nestedFilters')) sortFilter(nested);
  for (const key of ['nestedFilters', 'criteria']) {
    const value = filter[key];
    if (Array.isArray(value)) filter[key] = sortCanonically(value);
  }
}

function sortCanonically(items: JsonValue[]): JsonValue[] {
  return items
    .map((item) => ({ item, key: canonicalJson(item) }))
    .sort((a, b) => compareCodeUnits(a.key, b.key))
    .map(({ item }) => item);
}
