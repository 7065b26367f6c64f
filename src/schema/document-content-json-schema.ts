import { DOCUMENT_FILE_SCHEMAS, type DocumentKind } from './document-content.js';
import { fileJsonSchema } from './json-schema.js';

/** Each document kind's JSON Schema `$id`: one per kind, as a kind names one schema (kinds/kind.ts). */
export const DOCUMENT_FILE_SCHEMA_IDS: Record<DocumentKind, string> = {
  dashboard: 'urn:dashcd:schema:platform-dashboard-file',
  notebook: 'urn:dashcd:schema:notebook-file',
};

const HEADERS: Record<DocumentKind, { title: string; description: string }> = {
  dashboard: {
    title: 'dashcd platform dashboard file',
    description:
      'A dashboard of the Dashboards app: its content JSON (version, variables, tiles and layouts keyed alike, settings) plus `document: { kind: dashboard, name }` (optional: id, description, isPrivate).',
  },
  notebook: {
    title: 'dashcd notebook file',
    description: 'A notebook of the Notebooks app: its content JSON (version, sections) plus `document: { kind: notebook, name }` (optional: id, description, isPrivate).',
  },
};

/**
 * JSON Schema (draft-07) of a document file of `kind`, generated from its zod schema as dashboard files' is
 * (json-schema.ts): closed objects are closed for editors too; `validate` stays the authority (tiles without a
 * layout, duplicate section ids and id rules are beyond JSON Schema).
 */
export function documentFileJsonSchema(kind: DocumentKind): object {
  return fileJsonSchema(DOCUMENT_FILE_SCHEMAS[kind], { $id: DOCUMENT_FILE_SCHEMA_IDS[kind], ...HEADERS[kind] });
}
