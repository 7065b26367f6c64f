import { z } from 'zod';

/**
 * Dashboard ids are UUIDs in the 8-4-4-4-12 hex shape. The real service does not insist on an RFC version or
 * variant (real exports carry ids such as `12345678-1111-4444-8888-123456789012`), so neither do we. Only a
 * parsed id ever reaches a file path: the shape admits no `/`, `.` or `%`.
 */
const UUID_SHAPE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export const DashboardId = z
  .string()
  .regex(UUID_SHAPE, 'Not a valid UUID.')
  .transform((id) => id.toLowerCase())
  .brand<'DashboardId'>();
export type DashboardId = z.infer<typeof DashboardId>;

/** Environment ids name a directory in the data dir, so they are held to a short, path-safe alphabet. */
export const EnvironmentId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'Not a valid environment id (lowercase letters, digits and dashes).')
  .brand<'EnvironmentId'>();
export type EnvironmentId = z.infer<typeof EnvironmentId>;

export const DEFAULT_ENVIRONMENT = EnvironmentId.parse('local');

/**
 * The schema's rule without a zod parse: this runs on every request that names a dashboard. The cast is the brand
 * the schema would add, after the same check and the same lowercasing.
 */
export function parseDashboardId(raw: string): DashboardId | undefined {
  return UUID_SHAPE.test(raw) ? (raw.toLowerCase() as DashboardId) : undefined;
}
