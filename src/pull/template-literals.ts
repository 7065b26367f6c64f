/**
 * In a project with environments every string of a file is a template (docs/environments.md), so a live value's
 * `${{` — a GitHub Actions snippet in a markdown tile, say — would be read as one (`unknown template
 * "secrets.DT_TOKEN"`). Pull writes each as the literal form `$${{`, which the renderer reads back as `${{` (it drops
 * the `$` right before a `${{` and keeps the rest as text: environments/template.ts), so the pulled file means the
 * live value. Keys are never templates, so they stay as they are.
 */
const OPEN = '${{';
const LITERAL = `$${OPEN}`;

/** `value` as a templated file writes it: every `${{` of its strings as `$${{`. */
export function escapeTemplates<T>(value: T): T {
  return mapStrings(value, (text) => text.split(OPEN).join(LITERAL));
}

/**
 * An escaped value as the renderer reads it, what the written file means: each `$${{` back to `${{`. An escaped
 * string holds no other `${{`, and two literal forms never overlap (what follows one's `$$` is `{`, never `$`), so
 * the split finds exactly the ones the renderer finds.
 */
export function unescapeTemplates<T>(value: T): T {
  return mapStrings(value, (text) => text.split(LITERAL).join(OPEN));
}

/** How a pull's files write live strings (`written`), and what written ones mean (`meant`). */
export interface FileStrings {
  written<T>(value: T): T;
  meant<T>(value: T): T;
}

const asIs = <T>(value: T): T => value;

/** Files of a project without environments: no string is a template. */
export const PLAIN_STRINGS: FileStrings = { written: asIs, meant: asIs };

/** Files rendered as templates (the project declares environments). */
export const TEMPLATE_STRINGS: FileStrings = { written: escapeTemplates, meant: unescapeTemplates };

function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === 'string') return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map)) as T;
  if (typeof value !== 'object' || value === null) return value;
  // fromEntries defines members, so a `__proto__` member stays an own data member, as the parser made it.
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, mapStrings(member, map)])) as T;
}
