import type { Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { buildPlan, type PlanChange } from '../../../src/plan/build-plan.js';
import { normalizeForCompare } from '../../../src/dashboards/normalize.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { renderBeforeAfterSvg, undoPatch } from '../../../src/preview/before-after.js';
import { planPictures } from '../../../src/preview/plan-pictures.js';
import { PICTURE_WIDTH } from '../../../src/preview/render-layout.js';
import { svgToPng } from '../../../src/preview/render-png.js';
import { tileChanges } from '../../../src/preview/tile-changes.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { drawnTiles, fontSizes, pngSize, svgSize } from '../../helpers/svg-shapes.js';

const ID = '22222222-2222-4222-8222-222222222222';
const tile = (name: string, top: number, left = 0, width = 304) => ({ name, tileType: 'MARKDOWN' as const, bounds: { top, left, width, height: 76 }, markdown: name });
const board = (name: string, tiles: ReturnType<typeof tile>[]): Dashboard => ({ dashboardMetadata: { name, owner: 'ops', tags: [DEFAULT_OWNERSHIP_TAG] }, tiles });

const LIVE = board('Hosts', [tile('Title', 0), tile('Gone', 76), tile('Moves', 152), tile('Edited', 228), tile('Grows', 304), tile('Both', 380)]);
const DESIRED = board('Hosts v2', [tile('Title', 0), tile('Moves', 152, 380), { ...tile('Edited', 228), markdown: 'new text' }, tile('Grows', 304, 0, 608), tile('Both', 418, 38, 380), tile('New', 494)]);

function update(live: Dashboard, desired: Dashboard): Extract<PlanChange, { action: 'update' }> {
  const plan = buildPlan({ desired: [{ id: ID, file: 'd.yaml', name: 'Hosts', body: desired }], live: new Map([[ID, { ...live, id: ID }]]), liveOwned: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards, target: 't' });
  const change = plan.changes[0];
  if (change?.action !== 'update') throw new Error('expected an update');
  return change;
}

function picture(live: Dashboard, desired: Dashboard): string {
  const change = update(live, desired);
  const after = normalizeForCompare(change.desired, { ignore: [] });
  return renderBeforeAfterSvg({ before: undoPatch(after, change.patch, change.before), after, patch: change.patch });
}

const op = (path: string): Operation => ({ op: 'replace', path, value: 1 });

describe('tile marks from the plan patch', () => {
  it('marks removed, moved, changed, resized and added tiles on the right side', () => {
    const change = update(LIVE, DESIRED);
    const marks = tileChanges(change.patch, LIVE.tiles.length);
    expect([...marks.before]).toEqual([[1, 'removed'], [2, 'moved'], [3, 'changed'], [4, 'resized'], [5, 'moved-resized']]);
    expect([...marks.after]).toEqual([[1, 'moved'], [2, 'changed'], [3, 'resized'], [4, 'moved-resized'], [5, 'added']]);
    expect(marks.headerChanged).toBe(true);
  });

  it('a new top or left is a move, a new width or height a resize, anything else of the tile a change', () => {
    const after = (patch: Operation[]) => [...tileChanges(patch, 1).after.values()];
    expect(after([op('/tiles/0/bounds/top')])).toEqual(['moved']);
    expect(after([op('/tiles/0/bounds/left')])).toEqual(['moved']);
    expect(after([op('/tiles/0/bounds/width')])).toEqual(['resized']);
    expect(after([op('/tiles/0/bounds/height')])).toEqual(['resized']);
    expect(after([op('/tiles/0/bounds/height'), op('/tiles/0/bounds/left')])).toEqual(['moved-resized']);
    expect(after([op('/tiles/0/bounds')])).toEqual(['moved']);
    expect(after([op('/tiles/0/bounds/top'), op('/tiles/0/name')])).toEqual(['changed']);
    expect(after([op('/tiles/0/name'), op('/tiles/0/bounds/width')])).toEqual(['changed']);
    expect(after([op('/tiles/0/bounds/depth')])).toEqual(['changed']);
    expect(after([op('/tiles/0/bounds/top/x')])).toEqual(['changed']);
    expect(tileChanges([op('/tiles/0/name')], 1).headerChanged).toBe(false);
  });

  it('a whole tiles list replaced or removed: every live tile goes, every desired one is new', () => {
    const marks = (patch: Operation[], count = 2) => {
      const m = tileChanges(patch, count);
      return [[...m.before], [...m.after]];
    };
    expect(marks([{ op: 'replace', path: '/tiles', value: [{}, {}, {}] }])).toEqual([[[0, 'removed'], [1, 'removed']], [[0, 'added'], [1, 'added'], [2, 'added']]]);
    expect(marks([{ op: 'remove', path: '/tiles' }])).toEqual([[[0, 'removed'], [1, 'removed']], []]);
    expect(marks([{ op: 'add', path: '/tiles', value: [{}] }], 0)).toEqual([[], [[0, 'added']]]);
    expect(marks([{ op: 'replace', path: '/tiles', value: 'not a list' }])).toEqual([[[0, 'removed'], [1, 'removed']], []]);
  });

  it('a tile added at the end (`-`) or at the length is added; operations past the end or on no index are ignored', () => {
    const after = (patch: Operation[]) => [...tileChanges(patch, 1).after];
    expect(after([{ op: 'add', path: '/tiles/-', value: {} }])).toEqual([[1, 'added']]);
    expect(after([{ op: 'add', path: '/tiles/1', value: {} }])).toEqual([[1, 'added']]);
    expect(after([{ op: 'add', path: '/tiles/0', value: {} }])).toEqual([[0, 'added']]);
    for (const path of ['/tiles/2', '/tiles/-1', '/tiles/x', '/tiles/0.5', '/tiles/1/name']) expect(after([{ op: 'add', path, value: {} }]), path).toEqual([]);
    expect(after([op('/tiles/-/name')])).toEqual([]);
  });

  it('adding or removing a member of a tile, or replacing a tile whole, changes it (neither adds nor removes it)', () => {
    const marks = (patch: Operation[]) => {
      const m = tileChanges(patch, 2);
      return [[...m.before], [...m.after]];
    };
    expect(marks([{ op: 'add', path: '/tiles/1/queries', value: [] }])).toEqual([[[1, 'changed']], [[1, 'changed']]]);
    expect(marks([{ op: 'remove', path: '/tiles/0/markdown' }])).toEqual([[[0, 'changed']], [[0, 'changed']]]);
    expect(marks([{ op: 'replace', path: '/tiles/0', value: {} }])).toEqual([[[0, 'changed']], [[0, 'changed']]]);
  });

  it('lists removed live tiles in their order, whatever order the patch removed them in', () => {
    const patch: Operation[] = ['/tiles/2', '/tiles/0', '/tiles/1'].map((path) => ({ op: 'remove', path }));
    expect([...tileChanges(patch, 4).before]).toEqual([[0, 'removed'], [2, 'removed'], [3, 'removed']]);
    expect([...tileChanges(patch, 4).after]).toEqual([]);
  });

  it('undoing the patch on the desired side gives the live side the plan compared', () => {
    const change = update(LIVE, DESIRED);
    const after = normalizeForCompare(change.desired, { ignore: [] });
    expect(undoPatch(after, change.patch, change.before)).toEqual(normalizeForCompare({ ...LIVE, id: ID }, { ignore: [] }));
    expect(undoPatch({ tiles: [] }, [{ op: 'remove', path: '/tiles/7' }], [1])).toBeUndefined();
  });
});

describe('before/after picture', () => {
  it('draws live above desired, each changed tile in its colour with a label saying what happened', () => {
    const svg = picture(LIVE, DESIRED);
    const tiles = drawnTiles(svg);
    const [beforeTiles, afterTiles] = [tiles.slice(0, 6), tiles.slice(6)];
    expect(beforeTiles.map((t) => t.badge)).toEqual([undefined, 'removed', 'moved', 'changed', 'resized', 'moved + resized']);
    expect(afterTiles.map((t) => t.badge)).toEqual([undefined, 'moved', 'changed', 'resized', 'moved + resized', 'added']);
    expect(afterTiles.map((t) => t.mark)).toEqual([undefined, 'moved', 'changed', 'resized', 'moved-resized', 'added']);
    // Stacked: the whole after layout is below the whole before layout, both as wide as the picture allows.
    expect(Math.min(...afterTiles.map((t) => t.y))).toBeGreaterThan(Math.max(...beforeTiles.map((t) => t.y + t.height)));
    expect(afterTiles[0]?.x).toBe(beforeTiles[0]?.x);
    expect(svg).toMatch(/<rect [^>]*stroke="#1a7f37" stroke-width="2.5"/);
    expect(svg).toMatch(/<rect [^>]*stroke="#cf222e" stroke-width="2.5" stroke-dasharray/);
    expect(svg).toContain('class="header-changed"');
    expect(svg).toContain('>before (live)</text>');
    expect(svg).toContain('>after (desired)</text>');
    // A legend of the marks used (and the header's), in the order of MARK_LABELS.
    const legend = /<g class="legend">([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? '';
    expect([...legend.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1])).toEqual(['added', 'removed', 'changed', 'moved', 'resized', 'moved + resized', 'name, tags or filters changed']);
    expect(renderBeforeAfterSvg(structuredClone({ before: LIVE, after: DESIRED, patch: [] }))).toBe(renderBeforeAfterSvg({ before: LIVE, after: DESIRED, patch: [] }));
  });

  it('has no text column repeating the diff: every text is a caption, a header or inside a tile', () => {
    const svg = picture(LIVE, DESIRED);
    expect(svg).not.toMatch(/>[+~-] (tiles|dashboardMetadata)/);
    expect(svg).not.toContain('class="diff"');
    expect(svgSize(svg).width).toBe(PICTURE_WIDTH);
  });

  it('a picture without changed tiles has no legend; a header-only change names the header in it', () => {
    const same = renderBeforeAfterSvg({ before: LIVE, after: LIVE, patch: [] });
    expect(same).not.toContain('class="legend"');
    const renamed = renderBeforeAfterSvg({ before: LIVE, after: LIVE, patch: [op('/dashboardMetadata/name')] });
    expect(/<g class="legend">([\s\S]*?)<\/g>/.exec(renamed)?.[1]).toContain('>name, tags or filters changed</text>');
    expect(svgSize(renamed).height).toBe(svgSize(same).height + 24 + 12);
  });

  it('a create is one layout captioned "new dashboard": tiles drawn plainly, no diff, no "(no changes)"', () => {
    const svg = renderBeforeAfterSvg({ after: DESIRED, patch: [] });
    expect(drawnTiles(svg).map((t) => t.mark)).toEqual(DESIRED.tiles.map(() => undefined));
    expect(svg).toContain('>new dashboard</text>');
    expect(svg).not.toMatch(/no changes|>diff</);
    expect(svg).not.toContain('class="legend"');
    const plan = buildPlan({ desired: [{ id: ID, file: 'd.yaml', name: 'Hosts', body: DESIRED }], live: new Map(), liveOwned: [], ownershipTag: DEFAULT_OWNERSHIP_TAG, ignore: [], kind: classicDashboards, target: 't' });
    expect(planPictures(plan).map((p) => [p.fileName, p.svg.includes('>new dashboard</text>')])).toEqual([['d.yaml.png', true]]);
  });

  it('an update whose live side cannot be recovered shows the desired layout, saying why there is no before', () => {
    const svg = renderBeforeAfterSvg({ after: DESIRED, patch: [op('/tiles/9/name')] });
    expect(svg).toContain('>after (desired); the live layout could not be drawn, see the diff</text>');
    expect(drawnTiles(svg).every((t) => t.mark === undefined)).toBe(true);
  });

  it('stays legible at 800 px: every font at least 11 px once the picture is shown 800 wide, however wide the dashboard', () => {
    const wide = board('Wide', [tile('Far right', 0, 3000), tile('Left', 0)]);
    for (const svg of [picture(LIVE, DESIRED), picture(wide, { ...wide, tiles: [tile('Far right', 0, 3000), tile('Left', 38)] })]) {
      const { width } = svgSize(svg);
      expect(width).toBe(800);
      expect(Math.min(...fontSizes(svg)) * (800 / width)).toBeGreaterThanOrEqual(11);
      // The root's default font (tile names) is 12 px.
      expect(svg).toMatch(/^<svg [^>]*font-size="12"/);
    }
    // A dashboard three times the default width still fits: its rightmost tile ends inside the picture.
    const tiles = drawnTiles(picture(wide, { ...wide, tiles: [tile('Far right', 0, 3000), tile('Left', 38)] }));
    expect(Math.max(...tiles.map((t) => t.x + t.width))).toBeLessThanOrEqual(800);
  });

  it('renders a PNG at twice the picture size, read from its header', () => {
    const svg = picture(LIVE, DESIRED);
    expect(pngSize(svgToPng(svg))).toEqual({ width: 1600, height: 2 * svgSize(svg).height });
  });
});
