import { z } from 'zod';
import { opt, TileFilter } from './filters.js';
import { closedObject, listedObject } from './known-fields.js';

/** Tile name sizes: the documented three, plus `""` which real exports carry (11 of 47 corpus files). */
export const NameSize = z.enum(['small', 'medium', 'large', '']);

export const TileBounds = closedObject(
  z.looseObject({
    top: opt(z.number().int()),
    left: opt(z.number().int()),
    width: opt(z.number().int()),
    height: opt(z.number().int()),
  }),
);
export type TileBounds = z.infer<typeof TileBounds>;

/**
 * Fields every tile model has. Models are loose objects: the spec shows only some of each model's fields, and the
 * rest (queries' sub-settings, `useBackgroundColor`, …) must be stored and returned unchanged.
 */
const commonTileFields = {
  name: z.string(),
  bounds: TileBounds,
  configured: opt(z.boolean()),
  isAutoRefreshDisabled: opt(z.boolean()),
  nameSize: opt(NameSize),
  tileFilter: opt(TileFilter),
};

const model = <T extends readonly [string, ...string[]], S extends z.ZodRawShape>(tileTypes: T, shape: S) =>
  listedObject(z.looseObject({ tileType: z.enum(tileTypes), ...commonTileFields, ...shape }));

const assignedEntities = z.array(z.string());

export const DataExplorerTile = model(['DATA_EXPLORER'], {
  customName: opt(z.string()),
  queries: z.array(z.looseObject({ id: opt(z.string()), enabled: opt(z.boolean()) })),
  visualConfig: z.looseObject({}),
  queriesSettings: opt(z.looseObject({})),
  metricExpressions: opt(z.array(z.string())),
});
export const CustomChartingTile = model(['CUSTOM_CHARTING'], { filterConfig: opt(z.looseObject({})) });
export const UserSessionQueryTile = model(['DTAQL'], {
  customName: z.string(),
  query: z.string(),
  type: z.string(),
  chartConfig: opt(z.looseObject({ xAxis: opt(z.array(z.string())), yAxis: opt(z.array(z.string())) })),
  limit: opt(z.number().int()),
  timeFrameShift: opt(z.string()),
  // In the spec's model ({hasAxisBucketing}); the service drops it from GETs of some chart types.
  visualizationConfig: opt(z.looseObject({})),
});
export const MarkdownTile = model(['MARKDOWN'], { markdown: z.string() });
export const ImageTile = model(['IMAGE'], { image: z.string() });
export const FilterableEntityTile = model(
  ['HOSTS', 'APPLICATIONS', 'SERVICES', 'DATABASES_OVERVIEW', 'SYNTHETIC_TESTS'],
  { chartVisible: opt(z.boolean()), filterConfig: opt(z.looseObject({})) },
);
export const AssignedEntitiesWithMetricTile = model(
  ['APPLICATION_WORLDMAP', 'RESOURCES', 'THIRD_PARTY_MOST_ACTIVE', 'UEM_CONVERSIONS_PER_GOAL', 'HOST', 'PROCESS_GROUPS_ONE', 'SLO'],
  { assignedEntities, metric: opt(z.string()) },
);
export const SyntheticSingleWebcheckTile = model(['SYNTHETIC_SINGLE_WEBCHECK'], {
  assignedEntities,
  excludeMaintenanceWindows: opt(z.boolean()),
});
export const AssignedEntitiesTile = model(
  [
    'APPLICATION', 'VIRTUALIZATION', 'AWS', 'SERVICE_VERSATILE', 'SESSION_METRICS', 'USERS', 'UEM_KEY_USER_ACTIONS',
    'BOUNCE_RATE', 'UEM_CONVERSIONS_OVERALL', 'UEM_JSERRORS_OVERALL', 'MOBILE_APPLICATION', 'SYNTHETIC_SINGLE_EXT_TEST',
    'SYNTHETIC_HTTP_MONITOR', 'DATABASE', 'CUSTOM_APPLICATION', 'APPLICATION_METHOD', 'LOG_ANALYTICS', 'OPENSTACK',
    'OPENSTACK_PROJECT', 'OPENSTACK_AV_ZONE', 'DEVICE_APPLICATION_METHOD', 'DEM_KEY_USER_ACTION',
  ],
  { assignedEntities },
);
export const ScalableListTile = model(['SCALABLE_LIST'], {
  chartVisible: opt(z.boolean()),
  customFilterId: opt(z.string()),
  entitySpecificTileType: opt(z.string()),
});
export const ProblemTile = model(['OPEN_PROBLEMS'], {
  problemSelector: opt(z.string()),
  entitySelector: opt(z.string()),
  // Not in the spec; real exports carry it (corpus), so it is a known field.
  useBackgroundColor: opt(z.boolean()),
});
export const CommonOnlyTile = model(
  ['HEADER', 'PURE_MODEL', 'DOCKER', 'NETWORK_MEDIUM', 'APPLICATIONS_MOST_ACTIVE', 'NETWORK', 'UEM_ACTIVE_SESSIONS', 'DCRUM_SERVICES'],
  {},
);

const TILE_MODELS = [
  DataExplorerTile,
  CustomChartingTile,
  UserSessionQueryTile,
  MarkdownTile,
  ImageTile,
  FilterableEntityTile,
  AssignedEntitiesWithMetricTile,
  SyntheticSingleWebcheckTile,
  AssignedEntitiesTile,
  ScalableListTile,
  ProblemTile,
  CommonOnlyTile,
] as const;

/** The model a `tileType` selects, if any. */
export function tileModelOf(tileType: string): (typeof TILE_MODELS)[number] | undefined {
  return TILE_MODELS.find((model) => (model.shape.tileType.options as readonly string[]).includes(tileType));
}

/** What every model checks: a tile whose `tileType` selects none is checked this far (its own members are unknown). */
export const AnyTypeTile = z.looseObject({ tileType: z.unknown(), ...commonTileFields });

/** Every allowed `tileType`, derived from the models so the list cannot drift from them. */
export const TILE_TYPES: readonly string[] = TILE_MODELS.flatMap((m) => m.shape.tileType.options);
export const TileType = z.enum(TILE_TYPES as [string, ...string[]]);

/** One string for every tile that has none of them: a body of many bad tiles must not hold a copy per tile. */
const INVALID_TILE_TYPE = `Invalid tileType: expected one of ${TILE_TYPES.join(', ')}`;
/** A tile without one: the list of every type says less than that (a misspelt key, `tiletype:`, is warned of beside). */
const MISSING_TILE_TYPE = 'Required: every tile has a tileType (dashcd schema lists them)';

export const Tile = z.discriminatedUnion('tileType', [...TILE_MODELS], {
  error: (issue) => {
    if (issue.code !== 'invalid_union') return undefined;
    const input = issue.input as { tileType?: unknown } | undefined;
    return typeof input === 'object' && input !== null && input.tileType === undefined ? MISSING_TILE_TYPE : INVALID_TILE_TYPE;
  },
});
export type Tile = z.infer<typeof Tile>;
