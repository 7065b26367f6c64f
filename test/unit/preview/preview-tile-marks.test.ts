import { describe, expect, it } from 'vitest';
import { renderBeforeAfterSvg } from '../../../src/preview/before-after.js';
import { readPreviewDashboard, tileTitle } from '../../../src/preview/preview-model.js';
import { layoutPart, MARK_LABELS, renderLayoutSvg } from '../../../src/preview/render-layout.js';
import { charsFor } from '../../../src/preview/svg-text.js';
import type { TileMark } from '../../../src/preview/tile-changes.js';
import { drawnTiles, svgSize } from '../../helpers/svg-shapes.js';

/** A dashboard at the default width (32 columns of 38 px): its tiles drawn at 768 / 1216 of their size, from x = 16. */
const SCALE = 768 / 1216;
const at = (top: number, left: number, width: number, height: number, extra: object = {}) => ({ tileType: 'MARKDOWN', name: 'A rather long tile title', bounds: { top, left, width, height }, ...extra });
const dashboard = (tiles: object[]) => ({ dashboardMetadata: { name: 'D', tags: ['x'] }, tiles });

function badges(svg: string): { tile: number; x: number; y: number; width: number; label: string }[] {
  return [...svg.matchAll(/<g class="badge" data-tile="(\d+)"><rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"[^>]*\/><text[^>]*>([^<]*)<\/text><\/g>/g)].map((m) => ({ tile: Number(m[1]), x: Number(m[2]), y: Number(m[3]), width: Number(m[4]), label: m[5] ?? '' }));
}

describe('tile placement and scale', () => {
  it('scales the tiles into 768 px from x 16, under a 62 px header (and a 26 px caption), on an 784 px canvas', () => {
    const svg = renderLayoutSvg(dashboard([at(0, 0, 304, 152), at(152, 608, 608, 304)]));
    const [a, b] = drawnTiles(svg);
    expect(a).toMatchObject({ x: 16, y: 70, width: Math.round((304 * SCALE - 2) * 10) / 10, height: Math.round((152 * SCALE - 2) * 10) / 10 });
    expect(b?.x).toBeCloseTo(16 + 608 * SCALE, 1);
    expect(b?.y).toBeCloseTo(70 + 152 * SCALE, 1);
    expect(svgSize(svg)).toEqual({ width: 800, height: 62 + Math.ceil(456 * SCALE) + 16 });
    const part = layoutPart(readPreviewDashboard(dashboard([])), { caption: 'c', y: 100 });
    expect(part.height).toBe(26 + 62 + Math.ceil(152 * SCALE) + 16);
    expect(part.body).toContain('<text class="caption" x="8" y="118" font-size="16" font-weight="bold">c</text>');
    expect(part.body).toContain('<rect class="canvas" x="8" y="126" width="784"');
  });

  it('a wider dashboard is drawn smaller, to the same picture width', () => {
    const svg = renderLayoutSvg(dashboard([at(0, 2128, 304, 152)]));
    const [tile] = drawnTiles(svg);
    expect(tile!.x + tile!.width + 2).toBeCloseTo(800 - 16, 0);
  });

  it('a tall tile has its title on top, its type at the bottom; a short one only its title, centred', () => {
    const svg = renderLayoutSvg(dashboard([at(0, 0, 608, 152, { name: 'Tall' }), at(0, 608, 608, 38, { name: 'Short' })]));
    const [tall, short] = drawnTiles(svg);
    expect(tall?.texts).toEqual(['Tall', 'markdown']);
    expect(short?.texts).toEqual(['Short']);
    expect(svg).toContain('<text class="tile-name" x="21" y="84" font-weight="bold">Tall</text>');
    // One grid row of a dashboard four times the default width is under 13 px: no room for a title.
    const [tiny] = drawnTiles(renderLayoutSvg(dashboard([at(0, 0, 608, 38, { name: 'Tiny' }), at(0, 4560, 304, 38)])));
    expect(tiny?.height).toBeLessThan(13);
    expect(tiny?.texts).toEqual([]);
    const shortTop = short!.y;
    expect(svg).toContain(`y="${Math.round((shortTop + Math.min(14, short!.height / 2 + 4.5)) * 10) / 10}" font-weight="bold">Short</text>`);
  });

  it('a title is clipped to the tile, with room for a badge beside it in a short tile', () => {
    const plain = drawnTiles(renderLayoutSvg(dashboard([at(0, 0, 228, 38)])))[0];
    const width = 228 * SCALE - 2;
    expect(plain?.texts[0]).toHaveLength(charsFor(width - 10, 12));
    expect(plain?.texts[0]?.endsWith('…')).toBe(true);
    const marked = drawnTiles(renderLayoutSvg(dashboard([at(0, 0, 228, 38)]), { marks: new Map([[0, 'added']]) }))[0];
    expect(marked?.texts[0]).toHaveLength(charsFor(width - 10 - (5 * 11 * 0.62 + 8) - 4, 12));
  });

  it('a header tile is a grey band with its title; a marked one takes its mark\'s colour', () => {
    const header = at(0, 0, 608, 38, { tileType: 'HEADER', name: 'Section' });
    expect(renderLayoutSvg(dashboard([header]))).toMatch(/data-glyph="header">\n<rect [^>]*fill="#eaeef2" stroke="#8c959f" stroke-width="1"\/>/);
    expect(renderLayoutSvg(dashboard([header]), { marks: new Map([[0, 'moved']]) })).toMatch(/data-mark="moved">\n<rect [^>]*fill="#ddf4ff" stroke="#0969da" stroke-width="2.5"\/>/);
  });
});

describe('change badges', () => {
  it('each mark has its label; removed tiles are dashed', () => {
    const marks: TileMark[] = ['added', 'removed', 'changed', 'moved', 'resized', 'moved-resized'];
    const svg = renderLayoutSvg(dashboard(marks.map((_, i) => at(i * 152, 0, 608, 152))), { marks: new Map(marks.map((m, i) => [i, m])) });
    expect(badges(svg).map((b) => b.label)).toEqual(marks.map((m) => MARK_LABELS[m]));
    expect(MARK_LABELS['moved-resized']).toBe('moved + resized');
    expect([...svg.matchAll(/stroke-dasharray/g)]).toHaveLength(1);
    expect(svg).toMatch(/data-mark="removed">\n<rect [^>]*stroke-dasharray="6 4"/);
  });

  it('sits at the bottom right of a tall tile and beside the title of a short one, drawn above every tile', () => {
    const svg = renderLayoutSvg(dashboard([at(0, 0, 608, 152), at(152, 0, 608, 38)]), { marks: new Map<number, TileMark>([[0, 'changed'], [1, 'moved']]) });
    const [tall, short] = drawnTiles(svg);
    const [b0, b1] = badges(svg);
    expect(b0?.width).toBeCloseTo(7 * 11 * 0.62 + 8, 1);
    expect(b0!.x + b0!.width).toBeCloseTo(tall!.x + tall!.width - 3, 1);
    expect(b0!.y).toBeCloseTo(tall!.y + tall!.height - 15 - 3, 1);
    expect(b1!.y).toBeCloseTo(short!.y + (short!.height - 15) / 2, 1);
    // Badges follow the last tile, so no later tile covers one.
    expect(svg.indexOf('class="badge"')).toBeGreaterThan(svg.lastIndexOf('class="tile"'));
    // The type label of a tall marked tile leaves room for the badge.
    expect(tall?.texts).toEqual(['A rather long tile title', 'markdown']);
  });

  it('outlines the header when the name, tags or filters change', () => {
    expect(renderLayoutSvg(dashboard([]), { headerChanged: true })).toContain('<rect class="header-changed" x="10" y="2" width="780" height="58" fill="none" stroke="#bf8700" stroke-width="3"/>');
    expect(renderLayoutSvg(dashboard([]))).not.toContain('header-changed');
  });
});

describe('before/after legend', () => {
  it('lists only the marks used, each with its colour', () => {
    const before = dashboard([at(0, 0, 304, 152), at(0, 304, 304, 152)]);
    const svg = renderBeforeAfterSvg({ before, after: { ...before, tiles: [at(0, 0, 304, 152), at(0, 304, 304, 228)] }, patch: [{ op: 'replace', path: '/tiles/1/bounds/height', value: 228 }] });
    const legend = /<g class="legend">([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? '';
    // The legend's row starts under the last layout: y is where the layouts end.
    const y = Number(/<rect x="8" y="(\d+)"/.exec(legend)?.[1]) - 4;
    expect(legend).toBe(`<rect x="8" y="${y + 4}" width="14" height="14" rx="3" fill="#0969da"/><text x="27" y="${y + 16}" font-size="11">resized</text>`);
    expect(svgSize(svg).height).toBe(y + 24);
  });
});

describe('before/after legend spacing', () => {
  it('places each entry after the previous label', () => {
    const before = dashboard([at(0, 0, 304, 152), at(0, 304, 304, 152)]);
    const svg = renderBeforeAfterSvg({ before, after: { ...before, tiles: [at(0, 0, 304, 228)] }, patch: [{ op: 'replace', path: '/tiles/0/bounds/height', value: 228 }, { op: 'remove', path: '/tiles/1' }, { op: 'replace', path: '/dashboardMetadata/name', value: 'E' }] });
    const legend = /<g class="legend">([\s\S]*?)<\/g>/.exec(svg)?.[1] ?? '';
    const entries = [...legend.matchAll(/<rect x="(\d+)"[^>]*fill="([^"]+)"\/><text x="(\d+)"[^>]*>([^<]*)<\/text>/g)].map((m) => [Number(m[1]), m[2], Number(m[3]), m[4]]);
    // 19 px from swatch to label, then the label (11 px × 0.62 a character, rounded up) and 16 px.
    expect(entries).toEqual([
      [8, '#cf222e', 27, 'removed'],
      [91, '#0969da', 110, 'resized'],
      [174, '#bf8700', 193, 'name, tags or filters changed'],
    ]);
  });
});

describe('tile titles', () => {
  it('a custom chart\'s own name, else the tile\'s name, else its customName, else none', () => {
    const title = (tile: object): string => tileTitle(readPreviewDashboard({ tiles: [{ tileType: 'X', ...tile }] }).tiles[0]!);
    expect(title({ name: 'Custom chart', filterConfig: { customName: 'CPU' } })).toBe('CPU');
    expect(title({ name: 'Response', customName: 'Data explorer results' })).toBe('Response');
    expect(title({ customName: 'Only' })).toBe('Only');
    expect(title({ filterConfig: { chartConfig: 3 } })).toBe('');
  });
});
