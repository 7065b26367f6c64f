import { parsePointer, pointerProblem, removePointer } from '../plan/json-pointer.js';
import { jsonEqual } from '../plan/diff.js';
import { sortKeysDeep, toJsonValue, type JsonObject, type JsonValue } from '../plan/json-value.js';
import { DOCUMENT_KEY, type DocumentKind } from '../schema/document-content.js';
import { splitDocumentFile } from './document-file.js';

/** The metadata a plan compares: what a file sets and the service keeps beside the content. Not the id (identity). */
export interface ComparedMetadata {
  kind: DocumentKind;
  name: string;
  description?: string | null | undefined;
  isPrivate?: boolean | undefined;
}

/**
 * THE definition of "equal" for documents: a file and a live document mean the same when their compared forms are
 * equal, and a plan's patch is the difference of the two (RFC 6902, paths as in the file: `/layouts/3/x`,
 * `/document/name`). It is the file's shape: `document: { kind, name, isPrivate, description }` beside the parsed
 * content, so key order, whitespace, YAML or JSON, and number formatting (`1.0`, `1e1`) never differ, while
 * everything the content holds does (the service stores content as bytes and fills nothing in, so unlike classic
 * dashboards no null, empty member or default is dropped). Tiles and layouts are maps, compared key by key, so a
 * moved tile is a change to its layout only; sections are a list whose items carry `id`, which the plan's array
 * alignment pairs by (plan/align-arrays.ts). Ignore pointers (dashcd.yaml) apply to this form. Keys are sorted at
 * every depth; the inputs are never modified.
 */
export function comparedForm(metadata: ComparedMetadata, content: Record<string, unknown>, ignore: readonly string[]): JsonValue {
  const document: JsonObject = { kind: metadata.kind, name: metadata.name, isPrivate: metadata.isPrivate ?? false };
  // An empty description is none: the service answers it absent, and a file need not write it.
  if (metadata.description) document.description = metadata.description;
  // Spread keeps a content member named `__proto__` an own member (toJsonValue copies it as one).
  const form = sortKeysDeep(toJsonValue({ ...content, [DOCUMENT_KEY]: document }) ?? null);
  for (const pointer of ignore) if (pointerProblem(pointer) === undefined) removePointer(form, parsePointer(pointer));
  return form;
}

/** A checked document file's compared form: its `document:` member's metadata and its content (document-file.ts). */
export function fileComparedForm(file: Record<string, unknown>, ignore: readonly string[]): JsonValue {
  const { block, content } = splitDocumentFile(file);
  return comparedForm(block as ComparedMetadata, content, ignore);
}

/** The metadata as comparedForm holds it: public and no description being the defaults. */
function sameMetadata(a: ComparedMetadata, b: ComparedMetadata): boolean {
  return a.kind === b.kind && a.name === b.name && (a.isPrivate ?? false) === (b.isPrivate ?? false) && (a.description || undefined) === (b.description || undefined);
}

/**
 * Whether two documents in the file form (a live one and what apply writes) have equal compared forms, found
 * without making either: the same metadata and the same content value by value (jsonEqual), which comparedForm then
 * turns into the same form whatever the ignore pointers. A live document that is exactly what apply wrote is
 * recognised so at the cost of one walk over both, instead of two sorted copies and a diff. False says nothing:
 * the forms are compared then (speed only).
 */
export function sameDocumentContent(live: Record<string, unknown>, written: Record<string, unknown>): boolean {
  const a = splitDocumentFile(live);
  const b = splitDocumentFile(written);
  const isBlock = (block: unknown): block is ComparedMetadata => typeof block === 'object' && block !== null;
  return isBlock(a.block) && isBlock(b.block) && sameMetadata(a.block, b.block) && jsonEqual(a.content, b.content);
}
