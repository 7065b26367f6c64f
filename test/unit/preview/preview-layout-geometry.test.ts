import { describe, expect, it } from 'vitest';
import { layoutPart, renderLayoutSvg } from '../../../src/preview/render-layout.js';
import { glyphSvg } from '../../../src/preview/tile-glyphs.js';
import { readPreviewDashboard } from '../../../src/preview/preview-model.js';

/**
 * A dashboard 1536 px wide is drawn at half size into the 768 px between the picture's margins (800 - 4 × 8): every
 * expected coordinate below is the bounds halved, moved by the margin (16) and, vertically, by the header (62 + 8).
 */
const WIDE = { top: 0, left: 0, width: 1536, height: 304 };
const notes = { name: 'Notes', tileType: 'MARKDOWN', bounds: WIDE, markdown: 'Hello' };
const board = (tiles: unknown[], meta: Record<string, unknown> = {}): unknown => ({ dashboardMetadata: { name: 'Board', owner: 'o', ...meta }, tiles });

describe('layout geometry', () => {
  it('places a tall tile: its box, its name, its sketch under the name and its type above the bottom', () => {
    const svg = renderLayoutSvg(board([notes]));
    expect(svg).toContain('<rect x="16" y="70" width="766" height="150" rx="3" fill="#ffffff" stroke="#8c959f" stroke-width="1"/>');
    expect(svg).toContain('<text class="tile-name" x="21" y="84" font-weight="bold">Notes</text>');
    const tile = readPreviewDashboard(board([notes])).tiles[0];
    if (!tile) throw new Error('no tile');
    expect(svg).toContain(glyphSvg('markdown', { x: 21, y: 90, w: 756, h: 108 }, tile));
    expect(svg).toContain('<text class="tile-type" x="21" y="215" font-size="11" fill="#57606a">markdown</text>');
    expect(svg).toContain('width="800" height="230" viewBox="0 0 800 230"');
  });

  it("gives a chart's sketch the box under the name and above the type line", () => {
    const chart = { name: 'Load', tileType: 'DATA_EXPLORER', bounds: WIDE };
    const tile = readPreviewDashboard(board([chart])).tiles[0];
    if (!tile) throw new Error('no tile');
    expect(renderLayoutSvg(board([chart]))).toContain(glyphSvg('line', { x: 21, y: 90, w: 756, h: 108 }, tile));
  });

  it("keeps a marked tile's type line only where it fits beside the badge", () => {
    const tileAt = (left: number, width: number): unknown => ({ name: 'T', tileType: 'MARKDOWN', bounds: { top: 0, left, width, height: 304 }, markdown: 'x' });
    // Drawn 101 px wide: 91 beside the margins, less the badge (42.1 + 4) leaves 44.9, room for the type; 99 px does not.
    const marks = { marks: new Map([[0, 'added' as const]]) };
    expect(renderLayoutSvg(board([tileAt(0, 206), tileAt(1330, 206)]), marks)).toMatch(/<g class="tile" data-tile="0"[^]*?class="tile-type"[^]*?<g class="tile" data-tile="1"/);
    expect(renderLayoutSvg(board([tileAt(0, 202), tileAt(1334, 202)]), marks)).not.toMatch(/<g class="tile" data-tile="0"[^]*?class="tile-type"[^]*?<g class="tile" data-tile="1"/);
  });

  it('puts a marked tall tile’s badge at its bottom right and keeps the type clear of it', () => {
    const svg = renderLayoutSvg(board([notes]), { marks: new Map([[0, 'added']]) });
    expect(svg).toContain('<g class="badge" data-tile="0"><rect x="736.9" y="202" width="42.1" height="15" rx="3" fill="#1a7f37"/><text x="740.9" y="213.5" font-size="11" font-weight="bold" fill="#ffffff">added</text></g>');
    expect(svg).toContain('<text class="tile-type" x="21" y="215" font-size="11" fill="#57606a">markdown</text>');
  });

  it('draws the header: name, tags, filters, and an outline when it changed', () => {
    const part = layoutPart(readPreviewDashboard(board([notes], { tags: ['a', 'b'], dashboardFilter: { timeframe: '-2h' } })), { headerChanged: true });
    expect(part.body).toContain('<g class="header"><rect class="header-changed" x="10" y="2" width="780" height="58" fill="none" stroke="#bf8700" stroke-width="3"/>\n<text class="dashboard-name" x="16" y="21" font-size="15" font-weight="bold">Board</text>\n<text class="tags" x="16" y="39" fill="#57606a">tags: a · b</text>\n<text class="filters" x="16" y="55" fill="#57606a">timeframe: -2h</text>\n</g>');
    const plain = layoutPart(readPreviewDashboard(board([notes])), {}).body;
    expect(plain).toContain('<g class="header">\n<text class="dashboard-name"');
    expect(plain).toContain('>no tags</text>');
    expect(plain).toContain('>no filters</text>');
    expect(plain.endsWith('</g>\n')).toBe(true);
    expect(plain).not.toContain('\n\n');
  });

  it('puts a caption above the canvas and moves everything under it', () => {
    const part = layoutPart(readPreviewDashboard(board([notes])), { caption: 'after', y: 100 });
    expect(part.height).toBe(256);
    expect(part.body).toContain('<text class="caption" x="8" y="118" font-size="16" font-weight="bold">after</text>');
    expect(part.body).toContain('<rect class="canvas" x="8" y="126" width="784" height="230" fill="#f6f8fa" stroke="#d0d7de"/>');
    expect(part.body).toContain('<rect x="16" y="196" width="766" height="150"');
  });

  it('a short header tile: its band across the box, grey unless marked, the badge centred on its right', () => {
    const header = { name: 'Section', tileType: 'HEADER', bounds: { top: 0, left: 0, width: 1536, height: 38 } };
    const tile = readPreviewDashboard(board([header])).tiles[0];
    if (!tile) throw new Error('no tile');
    const plain = renderLayoutSvg(board([header]));
    expect(plain).toContain('<rect x="16" y="70" width="766" height="17" rx="3" fill="#eaeef2" stroke="#8c959f" stroke-width="1"/>');
    expect(plain).toContain(glyphSvg('header', { x: 17, y: 70, w: 764, h: 16 }, tile));
    const marked = renderLayoutSvg(board([header]), { marks: new Map([[0, 'changed']]) });
    expect(marked).toContain('<rect x="16" y="70" width="766" height="17" rx="3" fill="#fff8c5" stroke="#bf8700" stroke-width="2.5"/>');
    expect(marked).toContain('<g class="badge" data-tile="0"><rect x="723.3" y="71" width="55.7" height="15" rx="3" fill="#bf8700"/>');
  });

  it('draws the name and type only where they fit, at the thresholds', () => {
    const tileAt = (bounds: Record<string, number>, name = 'T'): unknown => ({ name, tileType: 'MARKDOWN', bounds: { top: 0, left: 0, ...bounds }, markdown: 'x' });
    // At a third (2304 px wide), a 45 px tile is 13 px high when drawn: the name still fits; 44 px (12.7) it does not.
    const short = renderLayoutSvg(board([tileAt({ width: 2304, height: 45 })]));
    expect(short).toContain('<text class="tile-name" x="21" y="81" font-weight="bold">T</text>');
    expect(renderLayoutSvg(board([tileAt({ width: 2304, height: 44 })]))).not.toContain('tile-name');
    // Scaled height 48 (100 px) is tall: a sketch and a type label; 47 (98 px) is not.
    expect(renderLayoutSvg(board([tileAt({ width: 1536, height: 100 })]))).toContain('class="tile-type"');
    expect(renderLayoutSvg(board([tileAt({ width: 1536, height: 98 })]))).not.toContain('class="tile-type"');
    // A type label needs 44 px beside the margins: a tile 54 px wide when drawn (112 px) has it, 53 (110 px) not.
    expect(renderLayoutSvg(board([tileAt({ width: 112, height: 304 }), tileAt({ left: 1424, width: 112, height: 304 })]))).toContain('class="tile-type"');
    expect(renderLayoutSvg(board([tileAt({ width: 110, height: 304 }), tileAt({ left: 1426, width: 110, height: 304 })]))).not.toContain('class="tile-type"');
    // Room for the name: 12 px beside the margins, less a badge's width in a short marked tile.
    expect(renderLayoutSvg(board([tileAt({ width: 48, height: 304 }), tileAt({ left: 1488, width: 48, height: 304 })]))).toContain('tile-name');
    expect(renderLayoutSvg(board([tileAt({ width: 46, height: 304 }), tileAt({ left: 1490, width: 46, height: 304 })]))).not.toContain('tile-name');
  });
});
