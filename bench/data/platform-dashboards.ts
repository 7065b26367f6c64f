import { documentFileYaml } from '../../src/documents/document-file.js';
import { createRng, type Rng } from '../lib/rng.js';
import { shuffled, TEAMS } from './dashboards.js';
import * as tiles from './platform-tiles.js';
import type { JsonObject } from './tiles.js';

type TileMaker = (rng: Rng) => JsonObject;

/**
 * Twenty tiles in the corpus's proportions (data tiles three in five, then markdown, code, annotation), shuffled,
 * so a dashboard weighs 20–30 KB as compact JSON, about the corpus's median (28 KB over 22 tiles).
 */
const TILE_MIX: readonly TileMaker[] = [
  ...Array.from({ length: 12 }, () => tiles.dataTile),
  ...Array.from({ length: 5 }, () => tiles.markdownTile),
  tiles.codeTile, tiles.codeTile,
  tiles.annotationTile,
];
const COLUMNS = 24;

/** The app's grid: tiles placed left to right in rows, a markdown tile as a full-width header. */
function layouts(rng: Rng, made: readonly JsonObject[]): JsonObject {
  const out: JsonObject = {};
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  made.forEach((tile, i) => {
    const header = tile['type'] === 'markdown';
    const w = header ? COLUMNS : rng.pick([6, 8, 12]);
    const h = header ? 2 : rng.pick([4, 5, 6]);
    if (x + w > COLUMNS) {
      y += rowHeight;
      x = 0;
      rowHeight = 0;
    }
    out[String(i)] = { x, y, w, h };
    x += w;
    rowHeight = Math.max(rowHeight, h);
  });
  return out;
}

/** Platform dashboard number `index` of the data set `seed` (the content, as the app downloads it). */
export function generatePlatformDashboard(seed: number, index: number): JsonObject {
  const rng = createRng(seed * 1_000_033 + index);
  const made = shuffled(rng, TILE_MIX).map((make) => make(rng));
  return {
    version: rng.int(15, 21),
    variables: tiles.variables(rng),
    tiles: Object.fromEntries(made.map((tile, i) => [String(i), tile])),
    layouts: layouts(rng, made),
    settings: rng.chance(0.5) ? {} : { defaultTimeframe: { enabled: true, value: { from: 'now()-2h', to: 'now()' } } },
    importedWithCode: false,
  };
}

/** A stable document id (letters, digits, dashes; never a UUID, which the service reserves for itself). */
export function platformDashboardId(seed: number, index: number): string {
  return `bench-${index}-${createRng(seed * 7927 + index + 1).hex(12).toLowerCase()}`;
}

export function platformDashboardName(index: number): string {
  return `${TEAMS[index % TEAMS.length] ?? 'team'} service health #${index}`;
}

/** The file `dashcd pull` would write for it: `document:` with the pinned id first, then the content. */
export function platformDashboardYaml(seed: number, index: number): string {
  const metadata = { kind: 'dashboard' as const, id: platformDashboardId(seed, index), name: platformDashboardName(index), isPrivate: false };
  const text = documentFileYaml(metadata, generatePlatformDashboard(seed, index));
  if (text === undefined) throw new Error('a generated dashboard has a top-level document or dashcd member');
  return text;
}
