import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';

/*
 * The text edit behind `dashcd pin` (reconcile/pin-ids.ts does the reading and writing): pure, so it is unit-tested and
 * mutation-tested on its own.
 */

/** The source with `id` set; throws if the edit would change anything else (a bug, never a user error). */
export function withId(source: string, id: string): string {
  return pinned(source, id, TOP_LEVEL);
}

/** A document file's source with `document.id` set (its id lives in its `document:` block); throws as withId does. */
export function withDocumentId(source: string, id: string): string {
  return pinned(source, id, IN_DOCUMENT);
}

/** Where an id lives in a file: its map, read from the file's root, and the id's place in the parsed value. */
interface IdPlace {
  map(root: YAMLMap): unknown;
  idOf(value: Record<string, unknown>): unknown;
  /** The value with the id's place emptied, to compare what the edit left alone. */
  without(value: Record<string, unknown>): Record<string, unknown>;
}

const TOP_LEVEL: IdPlace = {
  map: (root) => root,
  idOf: (value) => value.id,
  without: (value) => ({ ...value, id: null }),
};

const IN_DOCUMENT: IdPlace = {
  map: (root) => root.get('document'),
  // Only read once the block is known to be a mapping.
  idOf: (value) => (value.document as Record<string, unknown>).id,
  without: (value) => ({ ...value, document: { ...(value.document as Record<string, unknown>), id: null } }),
};

function pinned(source: string, id: string, place: IdPlace): string {
  const doc = parseDocument(source);
  const root = doc.contents;
  if (!isMap(root)) throw new Error('pinIds: the file is not a mapping');
  const map = place.map(root);
  if (!isMap(map)) throw new Error('pinIds: document: is not a mapping');
  const edited = editId(source, map, id);
  const before = doc.toJS() as Record<string, unknown>;
  const after = parseDocument(edited).toJS() as Record<string, unknown>;
  if (place.idOf(after) !== id || !isDeepStrictEqual(place.without(after), place.without(before))) {
    throw new Error('pinIds: inserting the id would change the dashboard; file left unchanged');
  }
  return edited;
}

function editId(source: string, root: YAMLMap, id: string): string {
  const pair = root.items.find((p) => isScalar(p.key) && p.key.value === 'id');
  if (pair !== undefined) return fillEmptyId(source, pair, id, root.flow === true);
  const start = root.range?.[0] ?? 0;
  if (root.flow) {
    const firstKey = (root.items[0]?.key as { range?: [number, number, number] } | undefined)?.range?.[0] ?? start + 1;
    const gap = source.slice(start + 1, firstKey);
    const lead = gap.includes('\n') ? gap.slice(gap.lastIndexOf('\n')) : ' ';
    return `${source.slice(0, start + 1)}${lead}"id": ${JSON.stringify(id)},${source.slice(start + 1)}`;
  }
  const column = start - (source.lastIndexOf('\n', start - 1) + 1);
  return `${source.slice(0, start)}id: ${id}\n${' '.repeat(column)}${source.slice(start)}`;
}

/** `id: ""`, `id: null`, `id:` → the id, in place. */
function fillEmptyId(source: string, pair: Pair, id: string, flow: boolean): string {
  const text = flow ? JSON.stringify(id) : id;
  const value = pair.value as { range?: [number, number, number] } | null;
  const range = value?.range;
  if (range !== undefined && range[1] > range[0]) return source.slice(0, range[0]) + text + source.slice(range[1]);
  const keyEnd = (pair.key as { range?: [number, number, number] }).range?.[1] ?? 0;
  const colon = source.indexOf(':', keyEnd) + 1;
  return `${source.slice(0, colon)} ${text}${source.slice(colon)}`;
}
