import { DASHCD_KEY, type DashcdBlock } from './dashcd-block.js';
import { getPath, isPlainObject, mergeDeep, setOwn, type PlainObject } from './deep-merge.js';

type Path = (string | number)[];

export interface EnvironmentRef {
  name: string;
  group: string | null;
}

export interface Layered {
  /** The file's dashboard for one environment, `dashcd:` removed, overrides merged, templates not yet applied. */
  value: PlainObject;
  /**
   * Where a member of `value` was written in the file: the most specific override that sets it, else the file's
   * own member (a tile keeps its identity through the merge, so `tiles[5]` may come from an override's `tiles[0]`).
   */
  originOf(path: readonly (string | number)[]): Path;
  problems: { path: Path; message: string }[];
}

/** Whether `names` (environment or group names) include this environment. */
export function appliesTo(names: readonly string[] | undefined, env: EnvironmentRef): boolean {
  // Stryker disable next-line ConditionalExpression: the null check narrows the type; names never include null
  return names === undefined || names.includes(env.name) || (env.group !== null && names.includes(env.group));
}

/**
 * The file's dashboard in `env`: undefined when `dashcd.environments` leaves it out. Tiles limited to other
 * environments are dropped; then the group's override and the environment's are merged in, in that order, objects
 * deeply (`null` removes a member), tiles matched by `name` (position in the list means nothing: bounds place a
 * tile), a tile with a new name added.
 */
export function applyOverrides(file: PlainObject, block: DashcdBlock | undefined, env: EnvironmentRef): Layered | undefined {
  if (!appliesTo(block?.environments, env)) return undefined;
  const problems: Layered['problems'] = [];
  let value: PlainObject = {};
  for (const [key, member] of Object.entries(file)) if (key !== DASHCD_KEY) setOwn(value, key, member);
  const tiles = Array.isArray(value.tiles) ? [...(value.tiles as unknown[])] : undefined;
  let tileOrigins: Path[][] = (tiles ?? []).map((_, i) => [['tiles', i]]);
  for (const [name, limit] of Object.entries(block?.tiles ?? {})) {
    const found = findTile(tiles, name);
    if (found.length === 0) problems.push({ path: [DASHCD_KEY, 'tiles', name], message: `no tile is named ${JSON.stringify(name)}` });
    if (appliesTo(limit.environments, env)) continue;
    tileOrigins = tileOrigins.filter((_, i) => !found.includes(i));
    // Stryker disable next-line OptionalChaining: a tile was found, so there are tiles
    found.reverse().forEach((i) => tiles?.splice(i, 1));
  }
  const layers = [env.group, env.name].flatMap((key) => (key !== null && block?.overrides?.[key] ? [{ key, override: block.overrides[key] }] : []));
  const memberOrigins: Path[] = [[]];
  for (const { key, override } of layers) {
    const prefix: Path = [DASHCD_KEY, 'overrides', key];
    const { tiles: overTiles, ...members } = override;
    value = mergeDeep(value, members, { nullDeletes: true }) as PlainObject;
    memberOrigins.unshift(prefix);
    (overTiles ?? []).forEach((overTile, j) => {
      const at: Path = [...prefix, 'tiles', j];
      const found = findTile(tiles, overTile.name);
      if (tiles === undefined) return;
      if (found.length > 1) problems.push({ path: at, message: `${found.length} tiles are named ${JSON.stringify(overTile.name)}: give them distinct names to override one` });
      const index = found[0];
      if (index === undefined) {
        tiles.push(overTile);
        tileOrigins.push([at]);
      } else {
        tiles[index] = mergeDeep(tiles[index], overTile, { nullDeletes: true });
        // Stryker disable next-line OptionalChaining: every tile has its origins from the start
        tileOrigins[index]?.unshift(at);
      }
    });
  }
  if (tiles !== undefined) setOwn(value, 'tiles', tiles);
  return { value, originOf: (path) => originOf(file, path, memberOrigins, tileOrigins), problems };
}

function findTile(tiles: readonly unknown[] | undefined, name: string): number[] {
  return (tiles ?? []).flatMap((tile, i) => (isPlainObject(tile) && tile.name === name ? [i] : []));
}

/** The first origin that has the member; else the one that brought the object in (a missing member's parent). */
function originOf(file: PlainObject, path: readonly (string | number)[], memberOrigins: readonly Path[], tileOrigins: readonly Path[][]): Path {
  const index = path[0] === 'tiles' && typeof path[1] === 'number' ? path[1] : undefined;
  const rest = index === undefined ? path : path.slice(2);
  const candidates = index === undefined ? memberOrigins : (tileOrigins[index] ?? [['tiles', index]]);
  const full = candidates.map((prefix) => [...prefix, ...rest]);
  return full.find((p) => getPath(file, p) !== undefined) ?? full[full.length - 1] ?? [...path];
}
