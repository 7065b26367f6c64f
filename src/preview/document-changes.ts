import type { Operation } from 'fast-json-patch';
import { parsePointer } from '../plan/json-pointer.js';
import { markOf, tileChanges, type TileMark } from './tile-changes.js';

/** Marks by box id on each side (a platform tile's key, a section's place), and whether the header changed. */
export interface DocumentChanges {
  before: Map<string, TileMark>;
  after: Map<string, TileMark>;
  headerChanged: boolean;
}

interface KeyFlags {
  added?: boolean;
  removed?: boolean;
  changed?: boolean;
  moved?: boolean;
  resized?: boolean;
}

/** Layout members: a new `x` or `y` moves a tile, a new `w` or `h` resizes it. */
const MOVES = new Set(['x', 'y']);
const RESIZES = new Set(['w', 'h']);
const MAPS = new Set(['tiles', 'layouts']);

/**
 * A platform dashboard's tile marks, read off the plan's patch over its compared form (documents/compared-form.ts).
 * Tiles and layouts are maps keyed alike, so an operation names its tile by key and no replay is needed: a tile
 * added or removed is `add`/`remove /tiles/<key>`; a new `x`/`y` is a move and a new `w`/`h` a resize (a layout
 * replaced or appearing whole, a move); any other change of a tile a change. A map added, removed or replaced whole
 * removes every live tile and adds every desired one. Anything else (the document's name, description, visibility,
 * variables, settings) marks the header.
 */
export function dashboardChanges(patch: readonly Operation[], beforeKeys: readonly string[], afterKeys: readonly string[]): DocumentChanges {
  const flags = new Map<string, KeyFlags>();
  const flag = (key: string): KeyFlags => flags.get(key) ?? flags.set(key, {}).get(key) ?? {};
  let headerChanged = false;
  let wholeMap = false;
  for (const op of patch) {
    const [map, key, member, ...deeper] = parsePointer(op.path);
    if (map === undefined || !MAPS.has(map)) headerChanged = true;
    else if (key === undefined) wholeMap = true;
    else if (map === 'tiles') {
      const whole = member === undefined;
      if (whole && op.op === 'add') flag(key).added = true;
      else if (whole && op.op === 'remove') flag(key).removed = true;
      else flag(key).changed = true;
    } else if (member === undefined || (MOVES.has(member) && deeper.length === 0)) flag(key).moved = true;
    else if (RESIZES.has(member) && deeper.length === 0) flag(key).resized = true;
    else flag(key).changed = true;
  }
  if (wholeMap) return { before: allMarked(beforeKeys, 'removed'), after: allMarked(afterKeys, 'added'), headerChanged };
  const before = new Map<string, TileMark>();
  const after = new Map<string, TileMark>();
  for (const [key, f] of flags) {
    if (f.removed) before.set(key, 'removed');
    if (f.added) after.set(key, 'added');
    const mark = f.added || f.removed ? undefined : markOf(f);
    if (mark === undefined) continue;
    before.set(key, mark);
    after.set(key, mark);
  }
  return { before, after, headerChanged };
}

function allMarked(keys: readonly string[], mark: TileMark): Map<string, TileMark> {
  return new Map(keys.map((key) => [key, mark]));
}

/**
 * A notebook's section marks: sections are a list, so the patch's operations on `/sections` are replayed as a
 * classic dashboard's on `/tiles` are (tile-changes.ts), each section standing for a tile; a section has no bounds,
 * so every change inside one is a change. Anything outside the sections marks the header. Marks are by the
 * section's place on its side.
 */
export function notebookChanges(patch: readonly Operation[], beforeCount: number): DocumentChanges {
  const asTiles = patch.map((op): Operation => {
    const [list, index, ...inside] = parsePointer(op.path);
    if (list !== 'sections') return { ...op, path: '/document' } as Operation;
    const path = index === undefined ? '/tiles' : inside.length === 0 ? `/tiles/${index}` : `/tiles/${index}/section`;
    return { ...op, path } as Operation;
  });
  const marks = tileChanges(asTiles, beforeCount);
  const byId = (m: Map<number, TileMark>) => new Map([...m].map(([i, mark]) => [String(i), mark]));
  return { before: byId(marks.before), after: byId(marks.after), headerChanged: marks.headerChanged };
}
