import { z } from 'zod';
import { DashboardFilter, DynamicFilters, opt } from './filters.js';
import { closedObject } from './known-fields.js';
import { Tile } from './tiles.js';

export const SharingDetails = closedObject(
  z.looseObject({
    linkShared: opt(z.boolean()),
    published: opt(z.boolean()),
  }),
);

export const DashboardMetadata = closedObject(
  z.looseObject({
    name: z.string(),
    owner: z.string(),
    shared: opt(z.boolean()),
    preset: opt(z.boolean()),
    hasConsistentColors: opt(z.boolean()),
    tags: opt(z.array(z.string())),
    tilesNameSize: opt(z.enum(['small', 'medium', 'large'])),
    dashboardFilter: opt(DashboardFilter),
    dynamicFilters: opt(DynamicFilters),
    // Dropped from the real model in 1.208 but still present in exports, so accepted and kept.
    sharingDetails: opt(SharingDetails),
    // Not in the spec; real GETs return it (a usage score owned by the service).
    popularity: opt(z.number()),
  }),
);
export type DashboardMetadata = z.infer<typeof DashboardMetadata>;

export const ConfigurationMetadata = z.looseObject({
  clusterVersion: opt(z.string()),
  configurationVersions: opt(z.array(z.number().int())),
  currentConfigurationVersions: opt(z.array(z.string())),
});
export type ConfigurationMetadata = z.infer<typeof ConfigurationMetadata>;

/**
 * A dashboard as the API and dashboard files carry it. `id` stays a plain string here: files and bodies may hold
 * `""` or a foreign id; whoever turns it into a path parses it with `DashboardId` first.
 */
export const Dashboard = closedObject(
  z.looseObject({
    id: opt(z.string()),
    metadata: opt(ConfigurationMetadata),
    dashboardMetadata: DashboardMetadata,
    tiles: z.array(Tile),
  }),
);
export type Dashboard = z.infer<typeof Dashboard>;

/**
 * A dashboard as a target answers GET, checked only as deep as reconciling relies on: its metadata, and tiles that
 * are objects with a type. The full model checks what dashcd writes; a live environment may hold tile types or
 * members newer than this schema, and plan must show those as drift to revert rather than refuse the environment.
 * (Checking every response against the full model also cost as much as parsing it: bench `plan`.)
 */
export const LiveDashboard = z.looseObject({
  id: opt(z.string()),
  metadata: opt(ConfigurationMetadata),
  dashboardMetadata: DashboardMetadata.pick({ name: true, owner: true, tags: true }),
  tiles: z.array(z.looseObject({ tileType: z.string() })),
});
export type LiveDashboard = z.infer<typeof LiveDashboard>;

/** `GET /dashboards` stubs. */
export const DashboardStub = z.looseObject({ id: z.string(), name: opt(z.string()), owner: opt(z.string()) });
export type DashboardStub = z.infer<typeof DashboardStub>;
export const DashboardList = z.looseObject({ dashboards: z.array(DashboardStub) });
export type DashboardList = z.infer<typeof DashboardList>;

/** The 201 body of create and create-on-PUT. */
export const CreatedDashboard = z.looseObject({ id: z.string(), name: opt(z.string()) });
export type CreatedDashboard = z.infer<typeof CreatedDashboard>;
