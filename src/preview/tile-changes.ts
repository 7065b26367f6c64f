import type { Operation } from 'fast-json-patch';
import { pushAll } from '../lib/push-all.js';

/**
 * How a tile changed in a before/after picture; unmarked tiles are drawn plainly. `changed`: something other than
 * its place or size (the diff says what), which outweighs a move or a resize.
 */
export type TileMark = 'added' | 'removed' | 'changed' | 'moved' | 'resized' | 'moved-resized';

/** Which tiles a plan's patch touches, by index on each side, and whether the dashboard's header changed. */
export interface TileChanges {
  /** Marks on the live (before) tiles: removed, changed, moved or resized. */
  before: Map<number, TileMark>;
  /** Marks on the desired (after) tiles: added, changed, moved or resized. */
  after: Map<number, TileMark>;
  headerChanged: boolean;
}

interface Slot {
  /** Index in the before tiles; null for an added tile. */
  origin: number | null;
  moved?: boolean;
  resized?: boolean;
  changed?: boolean;
}

/** `bounds` members: a new top or left moves a tile, a new width or height resizes it. */
const MOVES = new Set(['top', 'left']);
const RESIZES = new Set(['width', 'height']);

/**
 * Reads the tile marks off a plan's patch (live → desired, diff.ts) instead of diffing again: replaying the patch's
 * operations on `/tiles` over a list of slots, each remembering which live tile it holds, leaves the slots in the
 * desired order, so added, removed and changed tiles are known on both sides. A change of `bounds.top`/`left` is a
 * move, of `bounds.width`/`height` a resize (of `bounds` whole, a move), any other change of a tile a change; a
 * change outside `tiles` (name, tags, filters) marks the header.
 */
export function tileChanges(patch: readonly Operation[], beforeTileCount: number): TileChanges {
  const slots: Slot[] = Array.from({ length: beforeTileCount }, (_, i) => ({ origin: i }));
  const removed = new Set<number>();
  let headerChanged = false;
  for (const op of patch) {
    const segments = op.path.split('/').slice(1);
    if (segments[0] !== 'tiles') {
      headerChanged = true;
      continue;
    }
    if (segments.length === 1) {
      // The whole tiles array replaced (or removed): every live tile goes, every desired tile is new.
      for (const slot of slots.splice(0)) if (slot.origin !== null) removed.add(slot.origin);
      // A remove has no value: nothing new.
      const value = (op as { value?: unknown }).value;
      if (Array.isArray(value)) pushAll(slots, value.map(() => ({ origin: null })));
      continue;
    }
    applyTileOp(slots, removed, op, segments);
  }
  return collect(slots, removed, headerChanged);
}

function applyTileOp(slots: Slot[], removed: Set<number>, op: Operation, segments: string[]): void {
  const index = segments[1] === '-' ? slots.length : Number(segments[1]);
  if (!Number.isInteger(index) || index < 0 || index > slots.length) return;
  if (segments.length === 2 && op.op === 'add') {
    slots.splice(index, 0, { origin: null });
  } else if (segments.length === 2 && op.op === 'remove') {
    const [slot] = slots.splice(index, 1);
    if (slot?.origin !== null && slot?.origin !== undefined) removed.add(slot.origin);
  } else {
    const slot = slots[index];
    if (!slot) return;
    const member = segments[3];
    if (segments[2] !== 'bounds' || segments.length > 4) slot.changed = true;
    else if (member !== undefined && RESIZES.has(member)) slot.resized = true;
    else if (member === undefined || MOVES.has(member)) slot.moved = true;
    else slot.changed = true;
  }
}

/** What a tile's flags come to: a change outweighs a move or a resize. */
export function markOf(slot: Pick<Slot, 'changed' | 'moved' | 'resized'>): TileMark | undefined {
  if (slot.changed) return 'changed';
  if (slot.moved && slot.resized) return 'moved-resized';
  if (slot.moved) return 'moved';
  return slot.resized ? 'resized' : undefined;
}

function collect(slots: readonly Slot[], removed: ReadonlySet<number>, headerChanged: boolean): TileChanges {
  const before = new Map<number, TileMark>();
  const after = new Map<number, TileMark>();
  for (const origin of [...removed].sort((a, b) => a - b)) before.set(origin, 'removed');
  slots.forEach((slot, i) => {
    const mark = slot.origin === null ? 'added' : markOf(slot);
    if (mark === undefined) return;
    after.set(i, mark);
    if (slot.origin !== null) before.set(slot.origin, mark);
  });
  return { before, after, headerChanged };
}
