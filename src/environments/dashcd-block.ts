import { z } from 'zod';

/** The member of a dashboard file that holds dashcd's own settings; never sent to the API. */
export const DASHCD_KEY = 'dashcd';

const Names = z.array(z.string().min(1)).min(1);

/** An override is a partial dashboard merged into the file's; its tiles are merged with the file's by `name`. */
const Override = z.looseObject({
  tiles: z.array(z.looseObject({ name: z.string().min(1) })).optional(),
});

/**
 * `dashcd:` in a dashboard file:
 *
 *     dashcd:
 *       environments: [dev, production]      # only there (environment or group names)
 *       overrides:
 *         production:                        # a group's override, then an environment's, over the file
 *           dashboardMetadata: { dashboardFilter: { timeframe: -7d } }
 *           tiles:
 *             - name: Error budget           # a name no tile has: a tile added in production only
 *               …
 *       tiles:
 *         Debug: { environments: [dev] }     # a tile of the file kept only in dev
 */
export const DashcdBlock = z.strictObject({
  environments: Names.optional(),
  overrides: z.record(z.string(), Override).optional(),
  tiles: z.record(z.string(), z.strictObject({ environments: Names })).optional(),
});
export type DashcdBlock = z.output<typeof DashcdBlock>;

/** The keys `dashcd:` may hold, for the unknown-key check of dashboard files. */
export const DASHCD_BLOCK_KEYS: readonly string[] = Object.keys(DashcdBlock.shape);
