import { isDeepStrictEqual } from 'node:util';
import { isMap, isScalar, parseDocument, type Pair, type YAMLMap } from 'yaml';

/*
 * The text edit behind `dashcd pin` (pin-ids.ts does the reading and writing): pure, so it is unit-tested and
 * mutation-tested on its own.
 */

/** The source with `id` set; throws if the edit would change anything else (a bug, never a user error). */
export function withId(source: string, id: string): string {
  const doc = parseDocument(source);
  const root = doc.contents;
  if (!isMap(root)) throw new Error('pinIds: the file is not a mapping');
  const edited = editId(source, root, id);
  const before = doc.toJS() as Record<string, unknown>;
  const after = parseDocument(edited).toJS() as Record<string, unknown>;
  if (after.id !== id || !isDeepStrictEqual({ ...after, id: null }, { ...before, id: null })) {
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
