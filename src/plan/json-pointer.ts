import { isJsonObject, type JsonValue } from './json-value.js';

/** The wildcard segment of an ignore rule: any array index or object key at that depth. */
export const WILDCARD = '*';

/**
 * Why a string is not a usable ignore pointer, or undefined when it is. RFC 6901 syntax, plus `*`; the empty
 * pointer (the whole document) is refused because ignoring everything would make every dashboard `unchanged`.
 */
export function pointerProblem(pointer: string): string | undefined {
  if (pointer === '') return 'the empty pointer would ignore the whole dashboard';
  if (!pointer.startsWith('/')) return `must start with "/", as in /tiles/*/bounds`;
  if (/~(?![01])/.test(pointer)) return 'a "~" must be followed by 0 ("~") or 1 ("/")';
  return undefined;
}

/** `/tiles/3/a~1b` → `['tiles', '3', 'a/b']`. Assumes a syntactically valid pointer. */
export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * `/tiles/3/name` → `tiles[3].name`, the dotted form the real service uses in constraint violations. Keys that are
 * not plain identifiers are quoted (`tiles[0]["a.b"]`) so the path stays unambiguous.
 */
export function pointerToPath(pointer: string): string {
  let out = '';
  for (const segment of parsePointer(pointer)) {
    if (/^(0|[1-9][0-9]*)$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Removes, in place, every member or array item a (possibly wildcarded) pointer matches. */
export function removePointer(document: JsonValue, segments: readonly string[]): void {
  const [head, ...rest] = segments;
  if (head === undefined) return;
  if (Array.isArray(document)) {
    const indexes = head === WILDCARD ? document.map((_, i) => i) : arrayIndex(head, document.length);
    if (rest.length > 0) {
      for (const i of indexes) removePointer(document[i] as JsonValue, rest);
      return;
    }
    // Highest first, so earlier removals do not shift the indexes still to remove.
    for (const i of [...indexes].sort((a, b) => b - a)) document.splice(i, 1);
    return;
  }
  if (!isJsonObject(document)) return;
  // Stryker disable next-line ArrayDeclaration: a key the object does not have is neither deleted nor descended into anyway
  const keys = head === WILDCARD ? Object.keys(document) : Object.hasOwn(document, head) ? [head] : [];
  for (const key of keys) {
    if (rest.length > 0) removePointer(document[key] as JsonValue, rest);
    else delete document[key];
  }
}

function arrayIndex(segment: string, length: number): number[] {
  if (!/^(0|[1-9][0-9]*)$/.test(segment)) return [];
  const index = Number(segment);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: bounds only; splice and descent ignore an index past the end anyway
  return index < length ? [index] : [];
}
