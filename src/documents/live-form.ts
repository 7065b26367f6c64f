import type { DocumentFileBody, LiveDocumentBody } from '../schema/document-content.js';
import { DOCUMENT_KEY, DocumentKind } from '../schema/document-content.js';
import type { DocumentMetadata } from '../schema/documents.js';
import { splitDocumentFile } from './document-file.js';
import { tooDeepPath } from '../desired/yaml-hazards.js';
import { MAX_JSON_DEPTH } from '../schema/limits.js';

/**
 * A live document in the file form a plan compares (compared-form.ts): `document:` made of the service's metadata
 * (its type as the kind, name, description, isPrivate, and the version a write must name) beside the content's
 * members. Throws, naming the document, for what the file form cannot hold: content that is not a JSON object, or
 * that has its own top-level `document` member, or a type that is neither a dashboard nor a notebook.
 */
export function liveDocumentBody(metadata: DocumentMetadata, content: Buffer | string): LiveDocumentBody {
  const kind = DocumentKind.safeParse(metadata.type);
  if (!kind.success) throw new Error(`document ${metadata.id} is a ${JSON.stringify(metadata.type)}, not a dashboard or notebook`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(content.toString());
  } catch {
    throw new Error(`document ${metadata.id}'s content is not JSON: dashcd compares dashboards and notebooks as JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`document ${metadata.id}'s content is not a JSON object`);
  if (Object.hasOwn(parsed, DOCUMENT_KEY)) throw new Error(`document ${metadata.id}'s content has a top-level "document" member, which a dashcd file cannot hold`);
  // Compared and diffed recursively: content nested deeper than any file may be is refused here, not by a stack overflow.
  if (tooDeepPath(parsed) !== undefined) throw new Error(`document ${metadata.id}'s content nests deeper than ${MAX_JSON_DEPTH} levels, more than a dashcd file may`);
  const block = {
    kind: kind.data,
    name: metadata.name,
    ...(metadata.description ? { description: metadata.description } : {}),
    isPrivate: metadata.isPrivate,
    version: metadata.version,
  };
  return { [DOCUMENT_KEY]: block, ...(parsed as Record<string, unknown>) } as LiveDocumentBody;
}

/** What a write of a body sends: the metadata parts and the content (every member but `document:`) as JSON. */
export function documentWrite(body: DocumentFileBody): { name: string; type: DocumentKind; description: string | undefined; isPrivate: boolean; content: string } {
  const { block, content } = splitDocumentFile(body);
  const { kind, name, description, isPrivate } = block as DocumentFileBody['document'];
  return { name, type: kind, description, isPrivate: isPrivate ?? false, content: JSON.stringify(content) };
}
