import { exactYaml } from '../lib/exact-yaml.js';

const DASHBOARD_KEYS = ['id', 'dashboardMetadata', 'tiles'];
const METADATA_KEYS = ['name', 'owner', 'shared', 'preset', 'tags'];
const TILE_KEYS = ['name', 'tileType', 'configured', 'bounds'];
const BOUNDS_KEYS = ['top', 'left', 'width', 'height'];

type Plain = Record<string, unknown>;

/**
 * A live dashboard as a dashboard file, for `pull`: server-owned fields dropped (`metadata`,
 * `dashboardMetadata.popularity`), `id` kept, keys in a stable reading order (the well-known ones first, the rest
 * as the service sent them). Parsing the result gives back an equal value (exactYaml), and `yaml` quotes every
 * string that would otherwise read as another type.
 */
export function toDashboardYaml(dashboard: unknown): string {
  if (!isPlain(dashboard)) throw new TypeError('toDashboardYaml expects a dashboard object');
  const { metadata: _serverOwned, ...rest } = dashboard;
  const ordered = orderKeys(rest, DASHBOARD_KEYS, {
    dashboardMetadata: (value) => (isPlain(value) ? orderKeys(withoutPopularity(value), METADATA_KEYS) : value),
    tiles: (value) => (Array.isArray(value) ? value.map(orderTile) : value),
  });
  return exactYaml(ordered);
}

function orderTile(tile: unknown): unknown {
  if (!isPlain(tile)) return tile;
  return orderKeys(tile, TILE_KEYS, { bounds: (value) => (isPlain(value) ? orderKeys(value, BOUNDS_KEYS) : value) });
}

function withoutPopularity(metadata: Plain): Plain {
  const { popularity: _serverOwned, ...rest } = metadata;
  return rest;
}

/** `first` keys in that order, then every other key in its original order; `map` rewrites chosen values. */
function orderKeys(object: Plain, first: readonly string[], map: Record<string, (value: unknown) => unknown> = {}): Plain {
  const out: Plain = {};
  const put = (key: string): void => {
    // hasOwn: a member named `toString` must not pick up Object.prototype's function as a rewrite.
    const rewrite = Object.hasOwn(map, key) ? map[key] : undefined;
    const value = object[key];
    // defineProperty: a `__proto__` member must stay an own data property, as the parser made it.
    Object.defineProperty(out, key, { value: rewrite ? rewrite(value) : value, enumerable: true, writable: true, configurable: true });
  };
  for (const key of first) if (Object.hasOwn(object, key)) put(key);
  for (const key of Object.keys(object)) if (!first.includes(key)) put(key);
  return out;
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
