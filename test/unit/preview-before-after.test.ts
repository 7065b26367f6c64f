import { describe, expect, it } from 'vitest';
import { patchLines } from '../../src/plan/patch-lines.js';
import { buildPlan, type PlanChange } from '../../src/plan/build-plan.js';
import { normalizeForCompare } from '../../src/plan/normalize.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../src/plan/ownership.js';
import { renderBeforeAfterSvg, undoPatch } from '../../src/preview/before-after.js';
import { tileChanges } from '../../src/preview/tile-changes.js';
import type { Dashboard } from '../../src/schema/dashboard.js';
import { drawnTiles } from '../helpers/svg-shapes.js';

const ID = '22222222-2222-4222-8222-222222222222';
const tile = (name: string, top: number, left = 0) => ({ name, tileType: 'MARKDOWN' as const, bounds: { top, left, width: 304, height: 76 }, markdown: name });
const board = (name: string, tiles: ReturnType<typeof tile>[]): Dashboard => ({ dashboardMetadata: { name, owner: 'ops', tags: [DEFAULT_OWNERSHIP_TAG] }, tiles });

const LIVE = board('Hosts', [tile('Title', 0), tile('Gone', 76), tile('Moves', 152), tile('Edited', 228)]);
const DESIRED = board('Hosts v2', [tile('Title', 0), tile('Moves', 152, 380), { ...tile('Edited', 228), markdown: 'new text' }, tile('New', 304)]);

function update(live: Dashboard, desired: Dashboard): Extract<PlanChange, { action: 'update' }> {
  const plan = buildPlan({ desired: [{ id: ID, file: 'd.yaml', name: 'Hosts', body: desired }], live: new Map([[ID, { ...live, id: ID }]]), liveOwned: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], target: 't' });
  const change = plan.changes[0];
  if (change?.action !== 'update') throw new Error('expected an update');
  return change;
}

describe('before/after from the plan patch', () => {
  it('marks removed, moved, edited and added tiles on the right side', () => {
    const change = update(LIVE, DESIRED);
    const marks = tileChanges(change.patch, LIVE.tiles.length);
    expect([...marks.before]).toEqual([[1, 'removed'], [2, 'moved'], [3, 'edited']]);
    expect([...marks.after]).toEqual([[1, 'moved'], [2, 'edited'], [3, 'added']]);
    expect(marks.headerChanged).toBe(true);
  });

  it('undoing the patch on the desired side gives the live side the plan compared', () => {
    const change = update(LIVE, DESIRED);
    const after = normalizeForCompare(change.desired, { ignore: [] });
    expect(undoPatch(after, change.patch, change.before)).toEqual(normalizeForCompare({ ...LIVE, id: ID }, { ignore: [] }));
    expect(undoPatch({ tiles: [] }, [{ op: 'remove', path: '/tiles/7' }], [1])).toBeUndefined();
  });

  it('draws both layouts with coloured marks and the plan diff text beside them', () => {
    const change = update(LIVE, DESIRED);
    const after = normalizeForCompare(change.desired, { ignore: [] });
    const input = { before: undoPatch(after, change.patch, change.before), after, patch: change.patch, diffLines: patchLines(change) };
    const svg = renderBeforeAfterSvg(input);
    const tiles = drawnTiles(svg);
    const beforeTiles = tiles.slice(0, 4);
    const afterTiles = tiles.slice(4);
    expect(beforeTiles.map((t) => t.mark)).toEqual([undefined, 'removed', 'moved', 'edited']);
    expect(afterTiles.map((t) => t.mark)).toEqual([undefined, 'moved', 'edited', 'added']);
    // The after layout is drawn to the right of the before layout.
    expect(Math.min(...afterTiles.map((t) => t.x))).toBeGreaterThan(Math.max(...beforeTiles.map((t) => t.x + t.width)));
    expect(svg).toContain('stroke="#1a7f37"');
    expect(svg).toContain('stroke="#cf222e"');
    expect(svg).toContain('class="header-changed"');
    // The SVG draws each diff line with its runs of blanks collapsed (svg-text.ts clip), multi-line values included.
    for (const line of patchLines(change)) expect(svg).toContain(line.replace(/\s+/g, ' ').slice(0, 20).replace(/"/g, '&quot;'));
    expect(renderBeforeAfterSvg(structuredClone(input))).toBe(svg);
  });

  it('a new dashboard is drawn once with every tile added', () => {
    const svg = renderBeforeAfterSvg({ after: DESIRED, patch: [], diffLines: [] });
    expect(drawnTiles(svg).map((t) => t.mark)).toEqual(['added', 'added', 'added', 'added']);
    expect(svg).toContain('>new dashboard</text>');
  });
});
