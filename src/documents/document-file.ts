import { exactYaml } from '../lib/exact-yaml.js';
import { DASHCD_KEY, DOCUMENT_KEY, type DocumentKind } from '../schema/document-content.js';

type Plain = Record<string, unknown>;

/** What a document file says beside its content, as pull writes it from the service's metadata. */
export interface DocumentFileMetadata {
  kind: DocumentKind;
  id: string;
  name: string;
  description?: string | undefined;
  isPrivate: boolean;
}

/**
 * A file's parts: `document:` (its metadata), `dashcd:` (dashcd's own settings) and the content, which is every
 * other member, in file order: exactly what apply stores as the document's content.
 */
export function splitDocumentFile(file: Plain): { block: unknown; dashcd: unknown; content: Plain } {
  // Rest destructuring copies with CreateDataProperty: a `__proto__` member stays an own member of the content.
  const { [DOCUMENT_KEY]: block, [DASHCD_KEY]: dashcd, ...content } = file;
  return { block, dashcd, content };
}

/**
 * The file pull writes: `document:` first (kind, id, name, then description only when there is one and
 * `isPrivate` only when true, public being the default), then the content's members as the service holds them.
 * Undefined when the content itself has a top-level `document` or `dashcd` member: the file form cannot hold it
 * without changing what the document means, so pull must refuse it rather than lose it.
 */
export function documentFileValue(metadata: DocumentFileMetadata, content: Plain): Plain | undefined {
  if (Object.hasOwn(content, DOCUMENT_KEY) || Object.hasOwn(content, DASHCD_KEY)) return undefined;
  const block: Plain = { kind: metadata.kind, id: metadata.id, name: metadata.name };
  if (metadata.description) block.description = metadata.description;
  if (metadata.isPrivate) block.isPrivate = true;
  return { [DOCUMENT_KEY]: block, ...content };
}

/**
 * documentFileValue as YAML text. Parsing it gives back an equal value (exactYaml: a multi-line string no block
 * scalar keeps, such as a markdown tile's `" \n"`, is written as a JSON string), and `yaml` quotes every string
 * that would read as another type (`"21"`, `"true"`).
 */
export function documentFileYaml(metadata: DocumentFileMetadata, content: Plain): string | undefined {
  const value = documentFileValue(metadata, content);
  if (value === undefined) return undefined;
  return exactYaml(value);
}
