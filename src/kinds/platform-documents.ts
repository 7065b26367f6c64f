import { z } from 'zod';
import type { ApiClient } from '../client/api-client.js';
import type { DocumentsClient } from '../client/documents-api.js';
import { ApiError, TransportError, UnexpectedResponseError } from '../client/errors.js';
import { errorMessage } from '../lib/error-message.js';
import { DASHBOARD_FILE } from '../desired/discover-files.js';
import { deriveDocumentId } from '../desired/document-id.js';
import { fileComparedForm, sameDocumentContent } from '../documents/compared-form.js';
import { documentWrite, liveDocumentBody } from '../documents/live-form.js';
import { hasDocumentMark, withDocumentMark } from '../documents/ownership-mark.js';
import type { WrittenBody } from '../plan/build-plan.js';
import { DashboardDocumentFile, NotebookDocumentFile, type DocumentFileBody, type LiveDocumentBody } from '../schema/document-content.js';
import { DOCUMENT_FILE_SCHEMA_IDS, documentFileJsonSchema } from '../schema/document-content-json-schema.js';
import { defineKind, type Kind } from './kind.js';

/** The types a listing asks for: the apps' dashboards and notebooks (launchpads and other types are never touched). */
const LISTED_TYPES = "type == 'dashboard' or type == 'notebook'";

/**
 * Platform dashboards and notebooks (the Document service, docs/documents-as-code.md), the second kind. Files carry
 * the app's content plus `document:`; the ownership mark is the end of the description (documents/ownership-mark.ts);
 * writes name the version the plan read, so a document edited in between is refused (409) rather than overwritten;
 * a prune moves a document to the trash, from which it can be restored.
 */
export const platformDocuments: Kind<DocumentFileBody, LiveDocumentBody> = defineKind<DocumentFileBody, LiveDocumentBody, string>({
  info: { name: 'document', plural: 'documents', extensions: ['.yaml', '.yml', '.json'], schemaId: DOCUMENT_FILE_SCHEMA_IDS.dashboard },
  // The folder is shared with classic dashboards: the file's content decides (desired/detect-kind.ts).
  isFile: (path) => DASHBOARD_FILE.test(path),
  schema: z.union([DashboardDocumentFile, NotebookDocumentFile]) as unknown as z.ZodType<DocumentFileBody>,
  jsonSchema: () => ({ anyOf: [documentFileJsonSchema('dashboard'), documentFileJsonSchema('notebook')] }),
  deriveId: deriveDocumentId,
  isOwned: (live, mark) => hasDocumentMark((live as LiveDocumentBody).document.description, mark),
  written: (desired, mark): WrittenBody => {
    const body = desired.body as DocumentFileBody;
    const block = body.document;
    return { kind: 'document', desired: { ...body, document: { ...block, description: withDocumentMark(block.description, mark) } } };
  },
  // Speed only: a document exactly as apply wrote it is unchanged without computing either compared form.
  sameContent: (live, written) => sameDocumentContent(live as LiveDocumentBody, written.desired as DocumentFileBody),
  versionOf: (live) => (live as LiveDocumentBody).document.version,
  comparedForm: (value, ignore) => fileComparedForm(value as Record<string, unknown>, ignore),
  live: (api) => documentItems(documentsOf(api)),
  layout: (body) => body,
});

/** The target's Document service; a target without one fails as an unusable target does (exit 4), saying what to set. */
export function documentsOf(api: ApiClient): DocumentsClient {
  if (api.documents !== undefined) return api.documents;
  const what = api.noDocuments ?? "set DT_PLATFORM_TOKEN (or DT_CLIENT_ID and DT_CLIENT_SECRET), or platformTokenEnv in dashcd.yaml's environment";
  const message = `${api.baseUrl} has no platform configured for platform dashboards and notebooks: ${what}`;
  throw new TransportError(message, { method: 'GET', url: api.baseUrl, reason: 'NO_PLATFORM', attempts: 0, cause: undefined });
}

/**
 * A live document the file form cannot hold (not JSON, another type, nested too deep) is the target's answer to this
 * file's id, not a bug: a target failure (exit 4) that names the document and what to do, never an unexpected error.
 */
function comparable<T>(id: string, read: () => T, baseUrl: string): T {
  try {
    return read();
  } catch (error) {
    const message = `${errorMessage(error)} (give the file another document.id, or change the document in its app)`;
    throw new UnexpectedResponseError(message, { method: 'GET', url: `${baseUrl}/documents/${encodeURIComponent(id)}`, status: 200, problems: [errorMessage(error)] });
  }
}

function isStatus(error: unknown, status: number): boolean {
  return error instanceof ApiError && error.status === status;
}

function documentItems(documents: DocumentsClient): ReturnType<Kind<DocumentFileBody, LiveDocumentBody>['live']> {
  return {
    async listOwned(mark) {
      const listed = await documents.list({ filter: LISTED_TYPES, addFields: ['description'] });
      return listed.filter((d) => hasDocumentMark(d.description, mark)).map((d) => ({ id: d.id, name: d.name, kind: 'document' as const }));
    },
    async getText(id) {
      try {
        const { metadata, content } = await documents.get(id);
        const body = comparable(id, () => liveDocumentBody(metadata, content), documents.baseUrl);
        // The text serves only classic dashboards' written-text check (plan-against-live.ts): made if ever asked for.
        return {
          get text() {
            return JSON.stringify(body);
          },
          parse: () => body,
          // The service tells each caller its rights on the document: without `write`, an update is its 403.
          ...(metadata.access.includes('write') ? {} : { notWritable: `document ${id} belongs to ${metadata.owner}, who shares it with this identity to read only (access: ${metadata.access.join(', ') || 'none'})` }),
        };
      } catch (error) {
        if (isStatus(error, 404)) return undefined;
        throw error;
      }
    },
    async put(id, bodyJson, expectedVersion, metadataOnly) {
      const write = documentWrite(JSON.parse(bodyJson) as DocumentFileBody);
      const content = { bytes: write.content, contentType: 'application/json' };
      const metadata = { name: write.name, type: write.type, isPrivate: write.isPrivate, ...(write.description !== undefined ? { description: write.description } : {}) };
      if (expectedVersion === undefined) {
        await documents.create({ id, ...metadata, content });
        return 'created';
      }
      await documents.update(id, expectedVersion, metadataOnly === true ? metadata : { ...metadata, content });
      return 'updated';
    },
    async remove(id) {
      // To the trash at the version just read; one more read if it changed in between (the plan decided to delete it).
      for (let attempt = 0; ; attempt++) {
        try {
          const { version } = await documents.metadata(id);
          await documents.delete(id, version);
          return true;
        } catch (error) {
          if (isStatus(error, 404)) return false;
          if (!isStatus(error, 409) || attempt > 0) throw error;
        }
      }
    },
  };
}
