import { classicDashboards } from './classic-dashboards.js';
import type { Kind } from './kind.js';
import { platformDocuments } from './platform-documents.js';

/** Every kind dashcd keeps in git, by the mark its items carry (`kind` absent: a classic dashboard). */
export const KINDS = { dashboard: classicDashboards, document: platformDocuments } as const;

/** The kind of a desired item, a plan change or a live stub. */
export function kindOf(item: { kind?: 'document' | undefined }): Kind<unknown, unknown> {
  return (item.kind === 'document' ? KINDS.document : KINDS.dashboard) as unknown as Kind<unknown, unknown>;
}
