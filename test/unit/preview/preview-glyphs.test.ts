import { describe, expect, it } from 'vitest';
import { PreviewTile } from '../../../src/preview/preview-model.js';
import { glyphKind, glyphSvg, type Box, type GlyphKind } from '../../../src/preview/tile-glyphs.js';

const tile = (members: object): PreviewTile => PreviewTile.parse({ tileType: 'DATA_EXPLORER', ...members });
const BOX: Box = { x: 10, y: 20, w: 100, h: 50 };

/** Each element of a sketch: its name and numeric attributes, in order. */
function shapes(svg: string): { name: string; attrs: Record<string, string>; text: string }[] {
  return [...svg.matchAll(/<(\w+) class="glyph[^"]*"([^>]*?)\/?>(?:([^<]*)<\/\1>)?/g)].map((m) => ({
    name: m[1] ?? '',
    attrs: Object.fromEntries([...(m[2] ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map((a) => [a[1] ?? '', a[2] ?? ''])),
    text: m[3] ?? '',
  }));
}
const num = (s: { attrs: Record<string, string> }, name: string): number => Number(s.attrs[name]);
const draw = (kind: GlyphKind, box: Box = BOX, members: object = {}): ReturnType<typeof shapes> => shapes(glyphSvg(kind, box, tile(members)));

describe('glyph kinds', () => {
  it('a tile type that always shows the same thing wins over any chart setting', () => {
    expect(glyphKind(tile({ tileType: 'MARKDOWN', visualConfig: { type: 'TABLE' } }))).toBe('markdown');
    expect(glyphKind(tile({ tileType: 'HOSTS', filterConfig: { chartConfig: { type: 'TIMESERIES' } } }))).toBe('honeycomb');
  });

  it('a chart picks by visualConfig, then chartConfig, then its DQL type; unknown chart types draw a line, unknown tiles an entity', () => {
    expect(glyphKind(tile({ visualConfig: { type: 'PIE_CHART' }, type: 'TABLE' }))).toBe('pie');
    expect(glyphKind(tile({ tileType: 'CUSTOM_CHARTING', filterConfig: { chartConfig: { type: 'TOP_LIST' } }, type: 'TABLE' }))).toBe('toplist');
    expect(glyphKind(tile({ tileType: 'DTAQL', type: 'COLUMN_CHART' }))).toBe('columns');
    expect(glyphKind(tile({ tileType: 'DTAQL', type: 'FUNNEL' }))).toBe('toplist');
    expect(glyphKind(tile({ visualConfig: { type: 'SOMETHING_NEW' } }))).toBe('line');
    expect(glyphKind(tile({ tileType: 'CUSTOM_CHARTING' }))).toBe('line');
    expect(glyphKind(tile({ tileType: 'DTAQL' }))).toBe('line');
    expect(glyphKind(tile({ tileType: 'VIRTUALIZATION', visualConfig: { type: 'TABLE' } }))).toBe('table');
    expect(glyphKind(tile({ tileType: 'VIRTUALIZATION' }))).toBe('entity');
    expect(glyphKind(tile({ tileType: 'UEM_ACTIVE_SESSIONS' }))).toBe('number');
    expect(glyphKind(tile({ tileType: 'THIRD_PARTY_MOST_ACTIVE' }))).toBe('toplist');
  });
});

describe('glyph drawings', () => {
  it('draws nothing in a box too small to read', () => {
    expect(glyphSvg('line', { ...BOX, w: 11.9 }, tile({}))).toBe('');
    expect(glyphSvg('line', { ...BOX, h: 7.9 }, tile({}))).toBe('');
    expect(glyphSvg('line', { ...BOX, w: 12, h: 8 }, tile({}))).not.toBe('');
  });

  it('a line: an axis along the bottom and eight points across the whole width', () => {
    const [axis, line] = draw('line');
    expect(axis).toMatchObject({ name: 'line', attrs: { x1: '10', y1: '70', x2: '110', y2: '70' } });
    expect(line?.attrs.points).toBe('10,52.5 24.3,42.5 38.6,47.5 52.9,35 67.1,45 81.4,30 95.7,40 110,32.5');
    expect(line?.attrs).toMatchObject({ fill: 'none', stroke: '#0969da' });
    expect(axis?.attrs.stroke).toBe('#d0d7de');
    // The elements one after the other, nothing between them.
    expect(glyphSvg('line', BOX, tile({}))).toMatch(/^<line [^>]*\/><polyline [^>]*\/>$/);
  });

  it('columns: one per point of the wave, standing on the axis', () => {
    const [axis, ...columns] = draw('columns');
    expect(axis?.name).toBe('line');
    expect(columns).toHaveLength(8);
    for (const c of columns) expect(num(c, 'y') + num(c, 'height')).toBeCloseTo(70, 0);
    expect(columns.map((c) => num(c, 'x'))).toEqual([11.9, 24.4, 36.9, 49.4, 61.9, 74.4, 86.9, 99.4]);
    expect(columns.map((c) => num(c, 'width'))).toEqual(Array(8).fill(8.8));
    expect(columns.map((c) => num(c, 'height'))).toEqual([17.5, 27.5, 22.5, 35, 25, 40, 30, 37.5]);
  });

  it('a top list: four bars, each shorter than the one above', () => {
    const bars = draw('toplist');
    expect(bars.map((b) => [num(b, 'y'), num(b, 'width'), num(b, 'height')])).toEqual([[20, 100, 8.8], [32.5, 80, 8.8], [45, 60, 8.8], [57.5, 40, 8.8]]);
    // A short box has fewer rows, never thinner than 6 px.
    expect(draw('toplist', { ...BOX, h: 13 })).toHaveLength(2);
    expect(draw('toplist', { ...BOX, h: 8 })).toHaveLength(1);
  });

  it('a single value: a big number centred, sized to the box but readable', () => {
    const [value] = draw('number');
    expect(value).toMatchObject({ name: 'text', text: '42', attrs: { x: '60', 'text-anchor': 'middle', 'font-size': '36' } });
    expect(num(value!, 'y')).toBeCloseTo(45 + 36 * 0.35, 1);
    expect(draw('number', { x: 0, y: 0, w: 40, h: 10 })[0]?.attrs['font-size']).toBe('11');
    expect(draw('number', { x: 0, y: 0, w: 40, h: 30 })[0]?.attrs['font-size']).toBe('20');
    expect(draw('number', { x: 0, y: 0, w: 200, h: 30 })[0]?.attrs['font-size']).toBe('24');
  });

  it('a table: a header row, row lines and two column lines', () => {
    const [head, ...lines] = draw('table');
    expect(head).toMatchObject({ name: 'rect', attrs: { x: '10', y: '20', width: '100', height: '10' } });
    expect(lines.map((l) => l.name)).toEqual(['line', 'line', 'line', 'line', 'line', 'line']);
    expect(lines.slice(0, 4).map((l) => [l.attrs.x1, l.attrs.x2, l.attrs.y1, l.attrs.y2, l.attrs.stroke])).toEqual(['40', '50', '60', '70'].map((y) => ['10', '110', y, y, '#d0d7de']));
    expect(lines.slice(4).map((l) => [l.attrs.x1, l.attrs.x2, l.attrs.y1, l.attrs.y2])).toEqual([['50', '50', '20', '70'], ['80', '80', '20', '70']]);
    expect(head?.attrs.fill).toBe('#d0d7de');
  });

  it('a problems list: a red dot and a grey line per row', () => {
    const items = draw('list');
    expect(items.map((i) => i.name)).toEqual(['circle', 'rect', 'circle', 'rect', 'circle', 'rect', 'circle', 'rect']);
    expect(items[0]?.attrs).toMatchObject({ cx: '14.4', cy: '24.4', r: '3.8', fill: '#cf222e' });
    expect(items[1]?.attrs).toMatchObject({ x: '22.5', y: '21.9', width: '70', height: '5' });
  });

  it('a pie: a disc and a slice from 12 o\'clock', () => {
    const [disc, slice] = draw('pie');
    expect(disc?.attrs).toMatchObject({ cx: '60', cy: '45', r: '25', fill: '#54aeff' });
    expect(slice?.attrs.fill).toBe('#0969da');
    expect(slice?.attrs.d).toBe('M60,45 L60,20 A25,25 0 0 1 78.6,61.7 Z');
  });

  it('a honeycomb: hexagons along the top, one red', () => {
    const hexes = draw('honeycomb');
    expect(hexes).toHaveLength(5);
    expect(hexes.map((h) => h.attrs.fill)).toEqual(['#2da44e', '#2da44e', '#cf222e', '#2da44e', '#2da44e']);
    expect(hexes[0]?.attrs.points).toBe('26.4,33.3 19,37.6 11.6,33.3 11.6,24.7 19,20.5 26.4,24.7');
    expect(draw('honeycomb', { x: 0, y: 0, w: 400, h: 10 })).toHaveLength(8);
    expect(draw('honeycomb', { x: 0, y: 0, w: 12, h: 100 })).toHaveLength(1);
  });

  it('a heatmap: a grid of 8 × 3 cells in shades of one colour', () => {
    const cells = draw('heatmap');
    expect(cells).toHaveLength(24);
    expect(cells[0]?.attrs).toMatchObject({ x: '10', y: '20', width: '11.5', height: '15.7', 'fill-opacity': '0.5' });
    expect(cells[3]?.attrs['fill-opacity']).toBe('0.7');
    expect(cells[9]?.attrs).toMatchObject({ x: '22.5', y: '36.7', 'fill-opacity': '0.6' });
    expect(cells[23]?.attrs).toMatchObject({ x: '97.5', y: '53.3', 'fill-opacity': '0.6' });
  });

  it('a world map: a globe with a meridian and the equator', () => {
    const [globe, meridian, equator] = draw('map');
    expect(globe?.attrs).toMatchObject({ cx: '60', cy: '45', rx: '50', ry: '25' });
    expect(meridian?.attrs).toMatchObject({ rx: '16.7', ry: '25' });
    expect(equator?.attrs).toMatchObject({ x1: '10', y1: '45', x2: '110', y2: '45' });
  });

  it('markdown: its text wrapped to the box, 11 px lines; without text, grey lines', () => {
    const lines = draw('markdown', { x: 0, y: 0, w: 66, h: 30 }, { tileType: 'MARKDOWN', markdown: '# Runbook\nCall the on-call engineer first' });
    expect(lines.map((l) => [l.text, l.attrs.y, l.attrs['font-size']])).toEqual([['Runbook', '11', '11'], ['Call the …', '25', '11']]);
    const blank = draw('markdown', BOX, { tileType: 'MARKDOWN' });
    expect(blank.map((b) => [b.name, num(b, 'width'), num(b, 'height')])).toEqual([['rect', 90, 4], ['rect', 90, 4], ['rect', 50, 4]]);
    expect(draw('markdown', { ...BOX, h: 8 }, { tileType: 'MARKDOWN' }).map((b) => num(b, 'height'))).toEqual([3.2]);
  });

  it('a header: a band along the bottom edge', () => {
    expect(draw('header')[0]?.attrs).toMatchObject({ x: '10', y: '67', width: '100', height: '3' });
  });

  it('an image: a frame no wider than 3:2, a mountain and a sun', () => {
    const [frame, mountain, sun] = draw('image');
    expect(frame?.attrs).toMatchObject({ x: '10', y: '20', width: '75', height: '50' });
    expect(mountain?.attrs.points).toBe('10,70 36.3,40 55,57.5 66.3,47.5 85,70');
    expect(sun?.attrs).toMatchObject({ cx: '70', cy: '32.5', r: '6' });
  });

  it('an entity: a ring and a short line beside it', () => {
    const [ring, line] = draw('entity');
    expect(ring?.attrs).toMatchObject({ cx: '18', cy: '28', r: '8' });
    expect(line?.attrs).toMatchObject({ x: '30', y: '24.8', width: '60', height: '6.4' });
    expect(draw('entity', { x: 0, y: 0, w: 40, h: 10 })[1]?.attrs.width).toBe('25');
  });
});
