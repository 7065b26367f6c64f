import { stringify } from 'yaml';
import { createRng, type Rng } from '../lib/rng.js';
import * as tiles from './tiles.js';
import type { Bounds, JsonObject } from './tiles.js';

type TileMaker = (rng: Rng, bounds: Bounds) => JsonObject;

/**
 * Twenty tiles in the proportions real dashboards show (corpus: data explorer tiles dominate the bytes, headers
 * and markdown the count). The mix is fixed and shuffled, so every dashboard weighs 15–20 KB as compact JSON.
 */
const TILE_MIX: readonly TileMaker[] = [
  tiles.headerTile, tiles.headerTile,
  tiles.markdownTile, tiles.markdownTile,
  tiles.dataExplorerTile, tiles.dataExplorerTile, tiles.dataExplorerTile, tiles.dataExplorerTile,
  tiles.dataExplorerTile, tiles.dataExplorerTile, tiles.dataExplorerTile, tiles.headerTile,
  tiles.customChartingTile, tiles.customChartingTile,
  tiles.entityListTile, tiles.entityListTile,
  tiles.sloTile, tiles.problemsTile, tiles.userSessionQueryTile, tiles.httpMonitorTile,
];

export const TEAMS = ['payments', 'search', 'platform', 'identity', 'mobile', 'data', 'sre', 'growth'];
const GRID = 38;

export function shuffled<T>(rng: Rng, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

function boundsFor(rng: Rng, index: number): Bounds {
  const column = index % 4;
  const row = Math.floor(index / 4);
  return { top: row * GRID * 8, left: column * GRID * 10, width: GRID * rng.pick([8, 10]), height: GRID * rng.pick([4, 6, 8]) };
}

function metadata(rng: Rng, index: number): JsonObject {
  const team = rng.pick(TEAMS);
  const meta: JsonObject = {
    name: `${team} service overview #${index}`,
    shared: true,
    owner: `${team}-oncall@example.com`,
    tags: [team, rng.pick(['prod', 'staging']), 'bench'],
    preset: false,
    tilesNameSize: rng.pick(['small', 'medium']),
    hasConsistentColors: rng.chance(0.5),
    dashboardFilter: { timeframe: rng.pick(['-2h', 'l_72_HOURS', 'today']), managementZone: null },
  };
  if (rng.chance(0.5)) {
    meta['dynamicFilters'] = {
      filters: ['SERVICE_TYPE', `SERVICE_TAG_KEY:${team}`, 'KUBERNETES_CLUSTER'],
      genericTagFilters: [{ displayName: 'Team', tagKey: 'team', entityTypes: ['SERVICE', 'HOST'], suggestionsFromEntityType: 'SERVICE' }],
    };
  }
  return meta;
}

/** Dashboard number `index` of the data set `seed`: each one is reproducible on its own. */
export function generateDashboard(seed: number, index: number): JsonObject {
  const rng = createRng(seed * 1_000_003 + index);
  const makers = shuffled(rng, TILE_MIX);
  return { dashboardMetadata: metadata(rng, index), tiles: makers.map((make, i) => make(rng, boundsFor(rng, i))) };
}

/** A stable UUID for dashboard `index`, so servers seeded by different runs hold the same ids. */
export function dashboardId(seed: number, index: number): string {
  return createRng(seed * 7919 + index + 1).uuid();
}

export function dashboardYaml(dashboard: JsonObject): string {
  return stringify(dashboard, { lineWidth: 0 });
}
