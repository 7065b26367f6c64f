/**
 * dashcd's ownership mark on a document: the Document service has no tags, so the mark is the end of the document's
 * description, `[<ownershipTag>]` (the same tag classic dashboards carry in `dashboardMetadata.tags`). It travels
 * with the document (export, import, another tool's copy), is visible in the apps (people see that a dashboard is
 * managed from git), survives every write the apps make, and a listing returns it (`add-fields=description`)
 * without reading each document. A document without it was made elsewhere: dashcd changes it only through an
 * `adopt` in a plan and never deletes it.
 */

function markOf(tag: string): string {
  return `[${tag}]`;
}

/** The description with the mark at its end, once: `Errors of checkout [managed-by-dashcd]`, or the mark alone. */
export function withDocumentMark(description: string | undefined, tag: string): string {
  if (description !== undefined && hasDocumentMark(description, tag)) return description;
  return description ? `${description} ${markOf(tag)}` : markOf(tag);
}

/** Whether a description ends with the mark (as a word of its own: `x[tag]` is someone's text, not the mark). */
export function hasDocumentMark(description: string | undefined, tag: string): boolean {
  if (description === undefined) return false;
  const mark = markOf(tag);
  return description === mark || description.endsWith(` ${mark}`);
}

/** The description as its file says it: the mark taken off (undefined when nothing else is left). */
export function withoutDocumentMark(description: string | undefined, tag: string): string | undefined {
  if (description === undefined || !hasDocumentMark(description, tag)) return description || undefined;
  const rest = description.slice(0, description.length - markOf(tag).length).trimEnd();
  return rest === '' ? undefined : rest;
}
