import type { Operation } from 'fast-json-patch';
import type { TileMark } from './render-layout.js';

/** Which tiles a plan's patch touches, by index on each side, and whether the dashboard's header changed. */
export interface TileChanges {
  /** Marks on the live (before) tiles: removed, moved or edited. */
  before: Map<number, TileMark>;
  /** Marks on the desired (after) tiles: added, moved or edited. */
  after: Map<number, TileMark>;
  headerChanged: boolean;
}

interface Slot {
  /** Index in the before tiles; null for an added tile. */
  origin: number | null;
  mark?: 'moved' | 'edited';
}

/**
 * Reads the tile marks off a plan's patch (live → desired, diff.ts) instead of diffing again: replaying the patch's
 * operations on `/tiles` over a list of slots, each remembering which live tile it holds, leaves the slots in the
 * desired order, so added, removed and changed tiles are known on both sides. A change under `bounds` is a move,
 * any other change of a tile an edit; a change outside `tiles` (name, tags, filters) marks the header.
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
      if (op.op !== 'remove' && Array.isArray((op as { value?: unknown }).value)) {
        slots.push(...((op as { value: unknown[] }).value).map(() => ({ origin: null })));
      }
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
    // An edit outweighs a move: amber either way, but "edited" tells the reader to look at the diff.
    slot.mark = segments[2] === 'bounds' && slot.mark !== 'edited' ? 'moved' : 'edited';
  }
}

function collect(slots: readonly Slot[], removed: ReadonlySet<number>, headerChanged: boolean): TileChanges {
  const before = new Map<number, TileMark>();
  const after = new Map<number, TileMark>();
  for (const origin of [...removed].sort((a, b) => a - b)) before.set(origin, 'removed');
  slots.forEach((slot, i) => {
    if (slot.origin === null) after.set(i, 'added');
    else if (slot.mark) {
      after.set(i, slot.mark);
      before.set(slot.origin, slot.mark);
    }
  });
  return { before, after, headerChanged };
}
