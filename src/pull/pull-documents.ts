import type { DocumentsClient } from '../client/documents-api.js';
import { ApiError } from '../client/errors.js';
import { liveDocumentBody } from '../documents/live-form.js';
import type { ComparedKind } from '../plan/build-plan.js';
import type { LiveDocumentBody } from '../schema/document-content.js';
import { pulledDocument } from './pulled-document.js';
import { answeredAnotherId, pullItems, type PullCommonOptions, type PullOutcome } from './pull-items.js';

/** The types pull lists: the apps' dashboards and notebooks (launchpads and other types are never pulled). */
const PULLED_TYPES = "type == 'dashboard' or type == 'notebook'";

export interface PullDocumentsOptions extends PullCommonOptions {
  /** The target's Document service. */
  documents: DocumentsClient;
  /** The documents' kind (kinds/platform-documents.ts): compared form, ownership mark, and its write, for adopting. */
  kind: ComparedKind & { live(api: PullCommonOptions['api']): { put(id: string, body: string, expectedVersion?: number, metadataOnly?: boolean): Promise<unknown> } };
}

/**
 * Writes live platform dashboards and notebooks as document files (pull-items.ts: which file, when it is replaced,
 * adopting), in the form documentFileValue gives, as exact YAML, so a pulled file plans as unchanged.
 */
export async function pullDocuments(options: PullDocumentsOptions): Promise<PullOutcome[]> {
  const { documents, kind, ownershipTag } = options;
  return pullItems(options, {
    kind: 'document',
    compared: kind,
    async read(id, written) {
      let read;
      try {
        read = await documents.get(id);
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      }
      const other = answeredAnotherId(id, read.metadata.id);
      if (other) return other;
      let live: LiveDocumentBody;
      try {
        live = liveDocumentBody(read.metadata, read.content);
      } catch (error) {
        return { refused: (error as Error).message };
      }
      const pulled = pulledDocument(read.metadata.id, live, ownershipTag, written);
      return 'refused' in pulled ? pulled : { ...pulled, live, id: read.metadata.id };
    },
    async adopt(change) {
      if (change.kind === 'document') await kind.live(options.api).put(change.id, JSON.stringify(change.desired), change.expectedVersion, change.metadataOnly === true);
    },
  });
}

/**
 * The ids `pull --all` takes: every dashboard and notebook of the environment the caller can read, except the
 * ready-made ones an app or extension ships (`originAppId`/`originExtensionId` set): those belong to the app, which
 * updates them itself, as Monaco's download leaves them out.
 */
export async function pullableDocumentIds(documents: DocumentsClient): Promise<string[]> {
  const listed = await documents.list({ filter: PULLED_TYPES });
  return listed.filter((d) => d.originAppId == null && d.originExtensionId == null).map((d) => d.id);
}
