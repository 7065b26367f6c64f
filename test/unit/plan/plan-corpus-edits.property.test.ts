import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { patchLines } from '../../../src/plan/patch-lines.js';
import { normalizeForCompare } from '../../../src/dashboards/normalize.js';
import { withOwnershipTag } from '../../../src/dashboards/ownership.js';
import type { Dashboard, LiveDashboard } from '../../../src/schema/dashboard.js';
import { CORPUS_DASHBOARDS_DIR } from '../../helpers/corpus.js';
import { PLAN_ONE_ID as ID, PLAN_ONE_TAG as TAG, planOne } from '../../helpers/plan-one.js';

const none = { ignore: [] };

type Tile = Record<string, unknown> & { name: string };
type Edited = { tiles: Tile[]; origins: string[]; edited: Set<string> };

/**
 * Real dashboards with two or more tiles. Tile names are made unique (`CPU [3]`) so a test can tell which tile a
 * patch line names; everything else is the corpus as it is.
 */
const corpus: Dashboard[] = readdirSync(CORPUS_DASHBOARDS_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, f), 'utf8')) as Dashboard & { tiles?: Tile[] })
  .filter((d) => Array.isArray(d.tiles) && d.tiles.length >= 2 && typeof d.dashboardMetadata?.name === 'string')
  .map(({ id: _id, metadata: _m, ...d }) => ({ ...d, tiles: (d.tiles as Tile[]).map((t, k) => ({ ...t, name: `${typeof t.name === 'string' ? t.name : ''} [${k}]` })) }) as Dashboard);

/** One author's edit to the tile list; each records the tile it touched (by its original name). */
type Edit =
  | { kind: 'move' | 'resize' | 'rename' | 'markdown' | 'query' | 'delete'; at: number; by: number }
  | { kind: 'insert'; at: number; by: number }
  | { kind: 'reorder'; at: number; by: number };

const editArb: fc.Arbitrary<Edit> = fc.record({
  kind: fc.constantFrom('move', 'resize', 'rename', 'markdown', 'query', 'delete', 'insert', 'reorder') as fc.Arbitrary<Edit['kind']>,
  at: fc.nat(1000),
  by: fc.integer({ min: 1, max: 400 }),
}) as fc.Arbitrary<Edit>;

function applyEdit(state: Edited, edit: Edit, serial: number): void {
  const { tiles, origins, edited } = state;
  const i = edit.at % Math.max(1, tiles.length);
  const tile = tiles[i];
  const origin = origins[i] as string;
  const bounds = (tile?.bounds ?? { top: 0, left: 0, width: 38, height: 38 }) as Record<string, number>;
  switch (edit.kind) {
    case 'move':
      if (tile) tiles[i] = { ...tile, bounds: { ...bounds, top: (bounds.top ?? 0) + edit.by, left: (bounds.left ?? 0) + 38 } };
      break;
    case 'resize':
      if (tile) tiles[i] = { ...tile, bounds: { ...bounds, width: (bounds.width ?? 0) + edit.by } };
      break;
    case 'rename':
      if (tile) tiles[i] = { ...tile, name: `${tile.name} renamed ${serial}` };
      break;
    case 'markdown':
      if (tile) tiles[i] = { ...tile, tileType: 'MARKDOWN', markdown: `## Edited ${serial}\nline two` };
      break;
    case 'query':
      if (tile) tiles[i] = { ...tile, queries: [{ id: 'A', metric: `builtin:edited.${serial}`, spaceAggregation: 'AVG', enabled: true }] };
      break;
    case 'delete':
      if (!tile || tiles.length <= 1) return;
      tiles.splice(i, 1);
      origins.splice(i, 1);
      // Deleting a tile inserted by an earlier edit leaves no trace; deleting a live tile is an edit of it.
      if (origin.startsWith('new ')) edited.delete(origin);
      else edited.add(origin);
      return;
    case 'insert': {
      const added = `new ${serial}`;
      tiles.splice(i, 0, { name: added, tileType: 'MARKDOWN', bounds: { top: 1000 + edit.by, left: 0, width: 304, height: 38 }, markdown: added });
      origins.splice(i, 0, added);
      edited.add(added);
      return;
    }
    case 'reorder':
      return;
  }
  if (tile) edited.add(origin);
}

/**
 * Which tiles (by original name) a patch touches: the patch is replayed op by op on the normalised live dashboard,
 * each live tile object known by its origin; an added tile is the file's tile at that index.
 */
function namedTiles(from: { tiles?: unknown[] }, patch: readonly Operation[], desiredOrigins: readonly string[]): Set<string> {
  const originOf = new WeakMap<object, string>();
  const doc = structuredClone(from);
  for (const t of doc.tiles ?? []) originOf.set(t as object, (t as Tile).name);
  const named = new Set<string>();
  for (const op of patch) {
    const match = /^\/tiles\/(\d+)(\/.*)?$/.exec(op.path);
    if (match) {
      const k = Number(match[1]);
      const whole = match[2] === undefined;
      if (op.op === 'add' && whole) named.add(desiredOrigins[k] as string);
      else named.add(originOf.get(doc.tiles?.[k] as object) ?? `unknown tile ${k}`);
      if (op.op === 'replace' && whole) named.add(desiredOrigins[k] as string);
    }
    jsonpatch.applyOperation(doc, op, false, true);
    if (match && op.op === 'add' && match[2] === undefined) originOf.set(doc.tiles?.[Number(match[1])] as object, desiredOrigins[Number(match[1])] as string);
  }
  return named;
}

describe('plans of random edits to real corpus dashboards (property)', () => {
  it('the corpus has dashboards to edit', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
  });

  it('the patch turns the live compared form into the file’s, and names exactly the edited tiles', () => {
    fc.assert(
      fc.property(fc.nat(corpus.length - 1), fc.array(editArb, { minLength: 1, maxLength: 4 }), (which, edits) => {
        const base = corpus[which] as Dashboard & { tiles: Tile[] };
        const state: Edited = { tiles: [...base.tiles], origins: base.tiles.map((t) => t.name), edited: new Set() };
        edits.filter((e) => e.kind !== 'reorder').forEach((edit, serial) => applyEdit(state, edit, serial));
        const live = withOwnershipTag({ ...base, id: ID } as LiveDashboard, TAG);
        const body = { ...base, tiles: state.tiles } as Dashboard;
        const change = planOne(live, body);
        const from = normalizeForCompare(live, none) as { tiles?: unknown[] };
        if (change.action === 'unchanged') {
          expect(state.edited.size).toBe(0);
          return;
        }
        expect(change.action).toBe('update');
        if (change.action !== 'update') return;
        const patched = jsonpatch.applyPatch(structuredClone(from), change.patch, true, false).newDocument;
        expect(patched).toEqual(normalizeForCompare(change.desired, none));
        expect(namedTiles(from, change.patch, state.origins)).toEqual(state.edited);
        // The text names a tile once per patch operation, and shows every removed or added tile whole.
        const lines = patchLines(change);
        for (const op of change.patch) expect(lines.some((l) => l.startsWith(`${op.op === 'add' ? '+' : op.op === 'remove' ? '-' : '~'} `))).toBe(true);
        expect(lines.every((l) => !l.endsWith('…'))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('moving one tile within the list names that one tile only, or one it crossed, as removed and re-added whole', () => {
    fc.assert(
      fc.property(fc.nat(corpus.length - 1), fc.nat(1000), fc.nat(1000), (which, a, b) => {
        const base = corpus[which] as Dashboard & { tiles: Tile[] };
        const tiles: Tile[] = [...base.tiles];
        const from = a % tiles.length;
        const to = b % tiles.length;
        const [moved] = tiles.splice(from, 1);
        tiles.splice(to, 0, moved as Tile);
        const live = withOwnershipTag({ ...base, id: ID } as LiveDashboard, TAG);
        const change = planOne(live, { ...base, tiles } as Dashboard);
        if (from === to) {
          expect(change.action).toBe('unchanged');
          return;
        }
        if (change.action !== 'update') throw new Error(`expected an update, got ${change.action}`);
        const crossed = base.tiles.slice(Math.min(from, to), Math.max(from, to) + 1).map((t) => t.name);
        const named = namedTiles(normalizeForCompare(live, none) as { tiles?: unknown[] }, change.patch, tiles.map((t) => t.name));
        expect(named.size).toBe(1);
        expect(crossed).toContain([...named][0]);
        expect(change.patch.map((op) => op.op).sort()).toEqual(['add', 'remove']);
      }),
      { numRuns: 200 },
    );
  });
});
