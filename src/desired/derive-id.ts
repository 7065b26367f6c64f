import { createHash } from 'node:crypto';
import { DashboardId } from '../schema/ids.js';

/**
 * Namespace of derived dashboard ids: the UUID v5 of the name `dashcd:dashboard-file` in RFC 4122's URL namespace
 * (`6ba7b811-9dad-11d1-80b4-00c04fd430c8`). Fixed forever: changing it would give every unpinned dashboard a new id.
 */
export const DASHBOARD_ID_NAMESPACE = '473b911b-97f9-56ed-934a-58dd9d086a70';

/** RFC 4122 §4.3 name-based UUID, version 5 (SHA-1). */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name)
    .digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of a dashboard file without an `id`: UUID v5 of its path relative to the dashboards folder, with `/`
 * separators (so every machine and OS agrees). Renaming or moving such a file therefore means a new dashboard;
 * `dashcd pin` writes the id into the file to make a rename safe.
 */
export function deriveDashboardId(relativePath: string): DashboardId {
  return DashboardId.parse(uuidV5(relativePath, DASHBOARD_ID_NAMESPACE));
}
