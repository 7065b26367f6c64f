import type { LiveDashboard } from '../schema/dashboard.js';

/*
 * A classic dashboard's ownership mark: the tag (dashcd.yaml's `ownershipTag`) in `dashboardMetadata.tags`. Prune only
 * ever deletes dashboards carrying it, so presets and other tools' dashboards are never touched.
 */

interface Tagged {
  dashboardMetadata?: { tags?: string[] | null | undefined } | null | undefined;
}

/** What apply writes: the desired body plus the ownership tag, appended once. The input is not modified. */
export function withOwnershipTag<T extends LiveDashboard>(body: T, tag: string): T {
  const tags = body.dashboardMetadata.tags ?? [];
  if (tags.includes(tag)) return body;
  return { ...body, dashboardMetadata: { ...body.dashboardMetadata, tags: [...tags, tag] } };
}

/**
 * The inverse, for pull: a pulled file should read like the file that produced the live dashboard, which did not
 * carry the tag (apply adds it). An emptied tag list is dropped rather than written as `tags: []`.
 */
export function withoutOwnershipTag<T extends LiveDashboard>(body: T, tag: string): T {
  const tags = body.dashboardMetadata.tags;
  if (!tags?.includes(tag)) return body;
  const { tags: _dropped, ...rest } = body.dashboardMetadata;
  const remaining = tags.filter((t) => t !== tag);
  const dashboardMetadata = remaining.length > 0 ? { ...rest, tags: remaining } : rest;
  return { ...body, dashboardMetadata };
}

export function isOwned(dashboardOrStub: Tagged, tag: string): boolean {
  return dashboardOrStub.dashboardMetadata?.tags?.includes(tag) ?? false;
}
