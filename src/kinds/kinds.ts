import type { ApiClient } from '../client/api-client.js';
import { isDocumentId } from '../schema/documents.js';
import { parseDashboardId } from '../schema/ids.js';
import type { OwnedStub } from '../plan/build-plan.js';
import { classicDashboards } from './classic-dashboards.js';
import type { Kind } from './kind.js';
import { platformDocuments } from './platform-documents.js';

/** Every kind dashcd keeps in git, by the mark its items carry (`kind` absent: a classic dashboard). */
export const KINDS = { dashboard: classicDashboards, document: platformDocuments } as const;

/** The kind of a desired item, a plan change or a live stub. */
export function kindOf(item: { kind?: 'document' | undefined }): Kind<unknown, unknown> {
  return (item.kind === 'document' ? KINDS.document : KINDS.dashboard) as unknown as Kind<unknown, unknown>;
}

/**
 * Every live item carrying the ownership mark, of every kind the target has: the prune candidates. Documents are
 * listed only where the target has a Document service.
 */
export async function listOwned(api: ApiClient, mark: string): Promise<OwnedStub[]> {
  const [dashboards, documents] = await Promise.all([
    KINDS.dashboard.live(api).listOwned(mark),
    api.documents === undefined ? Promise.resolve([]) : KINDS.document.live(api).listOwned(mark),
  ]);
  return [...dashboards, ...documents];
}

/** Whether a word can name a live item of some kind: a classic dashboard's UUID or a document's id. */
export function isItemId(word: string): boolean {
  return parseDashboardId(word) !== undefined || isDocumentId(word);
}

/**
 * A live item by id, whichever kind holds it: a classic dashboard for a UUID the config API has, else a document
 * (where the target has a Document service; a document made in the apps has a UUID too). Undefined: neither has it.
 */
export async function readLiveItem(api: ApiClient, id: string): Promise<unknown> {
  if (parseDashboardId(id) !== undefined) {
    const dashboard = await api.dashboards.get(id);
    if (dashboard !== undefined) return dashboard;
  }
  if (api.documents === undefined || !isDocumentId(id)) return undefined;
  return (await KINDS.document.live(api).getText(id))?.parse();
}
