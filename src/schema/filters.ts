import { z } from 'zod';
import { closedObject } from './known-fields.js';

/** Real exports write absent optional members as explicit `null`; every optional member accepts it. */
export const opt = <T extends z.ZodType>(schema: T) => schema.nullish();

export const EntityShortRepresentation = closedObject(
  z.looseObject({
    id: z.string(),
    name: opt(z.string()),
    description: opt(z.string()),
  }),
);
export type EntityShortRepresentation = z.infer<typeof EntityShortRepresentation>;

export const DashboardFilter = closedObject(
  z.looseObject({
    managementZone: opt(EntityShortRepresentation),
    // Free text in the real service: `l_72_HOURS`, `-2h`, `today`, absolute ranges…
    // (docs/real-service-behaviour.md §2.3).
    timeframe: opt(z.string()),
  }),
);
export type DashboardFilter = z.infer<typeof DashboardFilter>;

export const TileFilter = DashboardFilter;
export type TileFilter = z.infer<typeof TileFilter>;

const PLAIN_DYNAMIC_FILTERS = [
  'OS_TYPE',
  'SERVICE_TYPE',
  'DEPLOYMENT_TYPE',
  'APPLICATION_INJECTION_TYPE',
  'PAAS_VENDOR_TYPE',
  'DATABASE_VENDOR',
  'HOST_VIRTUALIZATION_TYPE',
  'HOST_MONITORING_MODE',
  'KUBERNETES_CLUSTER',
  'RELATED_CLOUD_APPLICATION',
  'RELATED_NAMESPACE',
] as const;

const PARAMETERIZED_DYNAMIC_FILTERS = [
  'SERVICE_TAG_KEY',
  'HOST_TAG_KEY',
  'APPLICATION_TAG_KEY',
  'CUSTOM_DIMENSION',
  'PROCESS_GROUP_TAG_KEY',
  'PROCESS_GROUP_INSTANCE_TAG_KEY',
] as const;

const PLAIN = new Set<string>(PLAIN_DYNAMIC_FILTERS);
const PARAMETERIZED = new Set<string>(PARAMETERIZED_DYNAMIC_FILTERS);

function isDynamicFilter(entry: string): boolean {
  if (PLAIN.has(entry)) return true;
  const colon = entry.indexOf(':');
  return colon > 0 && colon < entry.length - 1 && PARAMETERIZED.has(entry.slice(0, colon));
}

/** One entry of `dynamicFilters.filters`: a plain filter or `KIND:<non-empty parameter>`. */
export const DynamicFilterEntry = z.string().refine(isDynamicFilter, {
  message: `Not an allowed filter: use one of ${PLAIN_DYNAMIC_FILTERS.join(', ')} or ${PARAMETERIZED_DYNAMIC_FILTERS.map((k) => `${k}:<name>`).join(', ')}`,
  // The closed set, for a did-you-mean hint: a parameterized kind is written with its colon (`HOST_TAG_KEY:`).
  params: { allowed: [...PLAIN_DYNAMIC_FILTERS, ...PARAMETERIZED_DYNAMIC_FILTERS.map((k) => `${k}:`)] },
});

export const DashboardGenericTagFilter = closedObject(
  z.looseObject({
    entityTypes: z.array(z.string()),
    displayName: opt(z.string()),
    suggestionsFromEntityType: opt(z.string()),
    tagKey: opt(z.string()),
  }),
);
export type DashboardGenericTagFilter = z.infer<typeof DashboardGenericTagFilter>;

export const DynamicFilters = closedObject(
  z.looseObject({
    filters: z.array(DynamicFilterEntry),
    genericTagFilters: z.array(DashboardGenericTagFilter),
  }),
);
export type DynamicFilters = z.infer<typeof DynamicFilters>;
