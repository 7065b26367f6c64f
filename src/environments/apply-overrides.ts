import { isDocumentShaped } from '../desired/detect-kind.js';
import { DASHCD_KEY, type AnyDashcdBlock } from './dashcd-block.js';
import { getPath, isPlainObject, mergeDeep, setOwn, type PlainObject } from './deep-merge.js';
import { quoted } from '../lib/quoted.js';

type Path = (string | number)[];
type Limits = Readonly<Record<string, { environments: readonly string[] }>>;

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

/**
 * A list whose items overrides match by one of their members, not by position: a classic dashboard's tiles by
 * `name` (bounds place a tile, not its index), a notebook's sections by `id`. Limits name items the same way.
 */
interface MatchedList {
  member: string;
  key: string;
  missing(key: string): string;
  several(count: number, key: string): string;
}

const CLASSIC_TILES: MatchedList = {
  member: 'tiles',
  key: 'name',
  missing: (name) => `no tile is named ${name}`,
  several: (count, name) => `${count} tiles are named ${name}: give them distinct names to override one`,
};

const SECTIONS: MatchedList = {
  member: 'sections',
  key: 'id',
  missing: (id) => `no section has the id ${id}`,
  several: (count, id) => `${count} sections have the id ${id}: give them distinct ids to override one`,
};

/** Whether `names` (environment or group names) include this environment. */
export function appliesTo(names: readonly string[] | undefined, env: EnvironmentRef): boolean {
  // Stryker disable next-line ConditionalExpression: the null check narrows the type; names never include null
  return names === undefined || names.includes(env.name) || (env.group !== null && names.includes(env.group));
}

/**
 * The file's dashboard in `env`: undefined when `dashcd.environments` leaves it out. Tiles (sections) limited to
 * other environments are dropped; then the group's override and the environment's are merged in, in that order,
 * objects deeply (`null` removes a member), a classic dashboard's tiles matched by `name` and a notebook's sections
 * by `id` (position in the list means nothing), an item with a new name or id added at the end. A platform
 * dashboard's tiles and layouts are maps: they merge by key as any object does.
 */
export function applyOverrides(file: PlainObject, block: AnyDashcdBlock | undefined, env: EnvironmentRef): Layered | undefined {
  if (!appliesTo(block?.environments, env)) return undefined;
  const problems: Layered['problems'] = [];
  let value: PlainObject = {};
  for (const [key, member] of Object.entries(file)) if (key !== DASHCD_KEY) setOwn(value, key, member);
  const document = isDocumentShaped(file);
  if (document) value = withoutLimitedTiles(value, block?.tiles, env, problems);
  const list = document ? SECTIONS : CLASSIC_TILES;
  const limits = document ? (block as { sections?: Limits } | undefined)?.sections : block?.tiles;
  const items = Array.isArray(value[list.member]) ? [...(value[list.member] as unknown[])] : undefined;
  let itemOrigins: Path[][] = (items ?? []).map((_, i) => [[list.member, i]]);
  for (const [name, limit] of Object.entries(limits ?? {})) {
    const found = findItems(items, list.key, name);
    if (found.length === 0) problems.push({ path: [DASHCD_KEY, list.member, name], message: list.missing(quoted(name)) });
    if (appliesTo(limit.environments, env)) continue;
    itemOrigins = itemOrigins.filter((_, i) => !found.includes(i));
    // Stryker disable next-line OptionalChaining: an item was found, so there are items
    found.reverse().forEach((i) => items?.splice(i, 1));
  }
  const layers = [env.group, env.name].flatMap((key) => (key !== null && block?.overrides?.[key] ? [{ key, override: block.overrides[key] as PlainObject }] : []));
  const memberOrigins: Path[] = [[]];
  for (const { key, override } of layers) {
    const prefix: Path = [DASHCD_KEY, 'overrides', key];
    const { [list.member]: overItems, ...members } = override;
    value = mergeDeep(value, members, { nullDeletes: true }) as PlainObject;
    memberOrigins.unshift(prefix);
    // The block's schema made the list's items objects with a string key member.
    ((overItems ?? []) as PlainObject[]).forEach((overItem, j) => {
      const at: Path = [...prefix, list.member, j];
      const name = overItem[list.key] as string;
      const found = findItems(items, list.key, name);
      if (items === undefined) return;
      if (found.length > 1) problems.push({ path: at, message: list.several(found.length, quoted(name)) });
      const index = found[0];
      if (index === undefined) {
        items.push(overItem);
        itemOrigins.push([at]);
      } else {
        items[index] = mergeDeep(items[index], overItem, { nullDeletes: true });
        // Stryker disable next-line OptionalChaining: every item has its origins from the start
        itemOrigins[index]?.unshift(at);
      }
    });
  }
  if (items !== undefined) setOwn(value, list.member, items);
  return { value, originOf: (path) => originOf(file, path, memberOrigins, list.member, itemOrigins), problems };
}

/**
 * A platform dashboard's tiles limited to other environments, dropped with their layouts (a tile is drawn where its
 * layout is: one without the other is an error). A limit naming a key no tile has is a problem.
 */
function withoutLimitedTiles(value: PlainObject, limits: Limits | undefined, env: EnvironmentRef, problems: Layered['problems']): PlainObject {
  const tiles = isPlainObject(value.tiles) ? value.tiles : {};
  const dropped = Object.entries(limits ?? {}).flatMap(([key, limit]) => {
    if (!Object.hasOwn(tiles, key)) problems.push({ path: [DASHCD_KEY, 'tiles', key], message: `no tile has the key ${quoted(key)}` });
    return appliesTo(limit.environments, env) ? [] : [key];
  });
  const removal = Object.fromEntries(dropped.map((key) => [key, null]));
  const patch = Object.fromEntries(['tiles', 'layouts'].filter((member) => isPlainObject(value[member])).map((member) => [member, removal]));
  return dropped.length === 0 ? value : (mergeDeep(value, patch, { nullDeletes: true }) as PlainObject);
}

function findItems(items: readonly unknown[] | undefined, key: string, name: string): number[] {
  return (items ?? []).flatMap((item, i) => (isPlainObject(item) && item[key] === name ? [i] : []));
}

/** The first origin that has the member; else the one that brought the object in (a missing member's parent). */
function originOf(file: PlainObject, path: readonly (string | number)[], memberOrigins: readonly Path[], member: string, itemOrigins: readonly Path[][]): Path {
  const index = path[0] === member && typeof path[1] === 'number' ? path[1] : undefined;
  const rest = index === undefined ? path : path.slice(2);
  const candidates = index === undefined ? memberOrigins : (itemOrigins[index] ?? [[member, index]]);
  const full = candidates.map((prefix) => [...prefix, ...rest]);
  return full.find((p) => getPath(file, p) !== undefined) ?? full[full.length - 1] ?? [...path];
}
