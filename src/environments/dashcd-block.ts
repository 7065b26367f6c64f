import { z } from 'zod';

/** The member of a dashboard file that holds dashcd's own settings; never sent to the API. */
export const DASHCD_KEY = 'dashcd';

const Names = z.array(z.string().min(1)).min(1);

/** Members of a file kept only in the environments (or groups) named: by tile name, tile key or section id. */
const Limits = z.record(z.string(), z.strictObject({ environments: Names }));

/** What either kind's block holds: where the file goes, its overrides (of the kind's shape), tile limits. */
function blockShape<O extends z.ZodType>(override: O) {
  return { environments: Names.optional(), overrides: z.record(z.string(), override).optional(), tiles: Limits.optional() };
}

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
export const DashcdBlock = z.strictObject(blockShape(Override));
export type DashcdBlock = z.output<typeof DashcdBlock>;

/**
 * A platform dashboard's or notebook's override: tiles and layouts are maps, merged deeply by key like any object
 * (`null` removes a tile); sections are a list, matched by `id` as classic tiles are by `name`.
 */
const DocumentOverride = z.looseObject({
  sections: z.array(z.looseObject({ id: z.string().min(1) })).optional(),
});

/**
 * `dashcd:` in a platform dashboard or notebook file: the same members, `tiles` limits keyed by tile key (the
 * tile's layout goes with it), and `sections` limits keyed by section id: the way to drop a section in some
 * environments, since a list item cannot be `null`-ed by id.
 *
 *     dashcd:
 *       overrides:
 *         prod:
 *           tiles: { "3": { query: "fetch logs | limit 10" }, "4": null }   # merged by key; null removes
 *           layouts: { "4": null }                                          # …and its layout with it
 *           sections:
 *             - id: intro                    # a section of the file, matched by id: members merged
 *               markdown: Production
 *       tiles:
 *         "5": { environments: [dev] }       # tile "5" and its layout kept only in dev
 *       sections:
 *         debug: { environments: [dev] }     # section `debug` kept only in dev
 */
export const DocumentDashcdBlock = z.strictObject({ ...blockShape(DocumentOverride), sections: Limits.optional() });
export type DocumentDashcdBlock = z.output<typeof DocumentDashcdBlock>;

/** Either kind's block: which one a file has follows from the file's kind (detect-kind.ts). */
export type AnyDashcdBlock = DashcdBlock | DocumentDashcdBlock;
