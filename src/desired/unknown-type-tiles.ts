import type { z } from 'zod';
import { AnyTypeTile, TILE_TYPES, tileModelOf } from '../schema/tiles.js';
import { schemaErrorMap } from './dashboard-rules.js';
import { isPlain } from './detect-kind.js';
import { nearest } from './hints.js';

/**
 * The other problems of each tile whose `tileType` selects no model: the schema stops at the type, so a file fixed
 * for it failed again for the tile's bounds, then again for its markdown (a CI run per problem). The tile is checked
 * as the model of the type its `tileType` most likely meant (the one the type's own problem names), else as far as
 * every model goes (name, bounds, filter). `issues` are a dashboard's; the result's paths are the dashboard's too.
 */
export function problemsBeyondTileType(value: unknown, issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue[] {
  const tiles = isPlain(value) && Array.isArray(value.tiles) ? (value.tiles as unknown[]) : [];
  return issues.flatMap((issue) => {
    const [member, index, key] = issue.path;
    if (issue.code !== 'invalid_union' || issue.path.length !== 3 || member !== 'tiles' || key !== 'tileType' || typeof index !== 'number') return [];
    const tile = tiles[index];
    if (!isPlain(tile)) return [];
    const meant = typeof tile.tileType === 'string' ? nearest(tile.tileType, TILE_TYPES) : undefined;
    const model = (meant === undefined ? undefined : tileModelOf(meant)) ?? AnyTypeTile;
    const checked = model.safeParse(meant === undefined ? tile : { ...tile, tileType: meant }, { error: schemaErrorMap });
    if (checked.success) return [];
    return checked.error.issues.filter((found) => found.path[0] !== 'tileType').map((found) => ({ ...found, path: ['tiles', index, ...found.path] }));
  });
}
