import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { PICTURE_WIDTH, renderLayoutSvg } from '../../../src/preview/render-layout.js';
import { markdownExcerpt, wrap } from '../../../src/preview/svg-text.js';
import { CORPUS_DASHBOARDS_DIR } from '../../helpers/corpus.js';
import { drawnTiles, fontSizes, parsedSvgWidth, svgSize } from '../../helpers/svg-shapes.js';

const corpusFiles = readdirSync(CORPUS_DASHBOARDS_DIR).filter((f) => f.endsWith('.json')).sort();

describe('layout preview', () => {
  it('finds the corpus', () => {
    expect(corpusFiles.length).toBeGreaterThan(40);
  });

  it.each(corpusFiles)('draws every tile of %s inside the canvas, none lost, same bytes twice', (file) => {
    const dashboard = JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, file), 'utf8')) as { tiles: { tileType: string; bounds: { left: number; top: number } }[] };
    const svg = renderLayoutSvg(dashboard);
    const { width, height } = svgSize(svg);
    const tiles = drawnTiles(svg);
    expect(tiles.map((t) => t.index)).toEqual(dashboard.tiles.map((_, i) => i));
    expect(tiles.map((t) => t.type)).toEqual(dashboard.tiles.map((t) => t.tileType));
    for (const t of tiles) {
      expect(t.x).toBeGreaterThanOrEqual(0);
      expect(t.y).toBeGreaterThanOrEqual(0);
      expect(t.x + t.width).toBeLessThanOrEqual(width);
      expect(t.y + t.height).toBeLessThanOrEqual(height);
    }
    // Positions follow the file's bounds: one tile further right in the file is further right in the picture.
    const [a, b] = tiles;
    const [fa, fb] = dashboard.tiles;
    if (a && b && fa && fb) expect(Math.sign(b.x - a.x)).toBe(Math.sign(fb.bounds.left - fa.bounds.left));
    expect(renderLayoutSvg(structuredClone(dashboard))).toBe(svg);
    // resvg parses it: the document is well-formed SVG.
    expect(parsedSvgWidth(svg)).toBe(width);
  });

  it('shows name, type label, markdown excerpt, tags and filters', () => {
    const svg = renderLayoutSvg({
      dashboardMetadata: {
        name: 'Checkout',
        owner: 'ops',
        tags: ['shop', 'prod'],
        dashboardFilter: { timeframe: '-2h', managementZone: { id: '1', name: 'Shop zone' } },
        dynamicFilters: { filters: ['SERVICE_TYPE'], genericTagFilters: [] },
      },
      tiles: [{ name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 38, width: 380, height: 152 }, markdown: '## Runbook\n**Call** [on-call](https://x.example) first' }],
    });
    expect(svg).toContain('>Checkout</text>');
    expect(svg).toContain('>tags: shop · prod</text>');
    expect(svg).toContain('>timeframe: -2h · zone: Shop zone · filter: SERVICE_TYPE</text>');
    const [tile] = drawnTiles(svg);
    expect(tile?.texts).toEqual(['Notes', 'Runbook Call on-call first', 'markdown']);
  });

  it('escapes every text: names, tags, types and markdown cannot inject markup', () => {
    const evil = '</text><script>alert(1)</script>&"\'\u0001\ud800';
    const svg = renderLayoutSvg({
      dashboardMetadata: { name: evil, owner: 'x', tags: [evil] },
      tiles: [{ name: evil, tileType: `A"><script>`, bounds: { top: 0, left: 0, width: 1216, height: 380 }, markdown: evil }],
    });
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('\u0001');
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;');
    expect(() => new Resvg(svg)).not.toThrow();
  });

  it('draws a dashboard without usable bounds or tiles rather than failing', () => {
    const svg = renderLayoutSvg({ dashboardMetadata: { name: 'Bare' }, tiles: [{ tileType: 'HEADER', name: 'h', bounds: null }, 'junk'] });
    expect(drawnTiles(svg)).toHaveLength(2);
    expect(drawnTiles(renderLayoutSvg(null))).toEqual([]);
  });
});

describe('tile sketches', () => {
  const at = (i: number, tile: object) => ({ ...tile, name: `Tile ${i}`, bounds: { top: Math.floor(i / 4) * 228, left: (i % 4) * 304, width: 304, height: 228 } });
  // What a reviewer should recognise, per tile type and chart setting, and the SVG elements that draw it.
  const CASES: [object, string, string[]][] = [
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'GRAPH_CHART' } }, 'line', ['line', 'polyline']],
    [{ tileType: 'DATA_EXPLORER' }, 'line', ['line', 'polyline']],
    [{ tileType: 'CUSTOM_CHARTING', filterConfig: { customName: 'CPU usage %', chartConfig: { type: 'TIMESERIES' } } }, 'line', ['line', 'polyline']],
    [{ tileType: 'DTAQL', type: 'LINE_CHART' }, 'line', ['line', 'polyline']],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'SINGLE_VALUE' } }, 'number', ['text']],
    [{ tileType: 'CUSTOM_CHARTING', filterConfig: { chartConfig: { type: 'SINGLE_VALUE' } } }, 'number', ['text']],
    [{ tileType: 'SLO' }, 'number', ['text']],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'TABLE' } }, 'table', ['rect', 'line', 'line', 'line', 'line', 'line', 'line']],
    [{ tileType: 'DTAQL', type: 'TABLE' }, 'table', ['rect', 'line', 'line', 'line', 'line', 'line', 'line']],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'TOP_LIST' } }, 'toplist', ['rect', 'rect', 'rect', 'rect']],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'STACKED_COLUMN' } }, 'columns', ['line', ...Array<string>(8).fill('rect')]],
    [{ tileType: 'DTAQL', type: 'PIE_CHART' }, 'pie', ['circle', 'path']],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'HONEYCOMB' } }, 'honeycomb', Array<string>(8).fill('polygon')],
    [{ tileType: 'HOSTS' }, 'honeycomb', Array<string>(8).fill('polygon')],
    [{ tileType: 'DATA_EXPLORER', visualConfig: { type: 'HEATMAP' } }, 'heatmap', Array<string>(24).fill('rect')],
    [{ tileType: 'OPEN_PROBLEMS' }, 'list', ['circle', 'rect', 'circle', 'rect', 'circle', 'rect', 'circle', 'rect']],
    [{ tileType: 'APPLICATION_WORLDMAP' }, 'map', ['ellipse', 'ellipse', 'line']],
    [{ tileType: 'MARKDOWN', markdown: '# Runbook' }, 'markdown', ['text']],
    [{ tileType: 'MARKDOWN' }, 'markdown', ['rect', 'rect', 'rect']],
    [{ tileType: 'HEADER' }, 'header', ['rect']],
    [{ tileType: 'IMAGE' }, 'image', ['rect', 'polygon', 'circle']],
    [{ tileType: 'PURE_MODEL' }, 'entity', ['circle', 'rect']],
  ];

  it('draws each tile type with its sketch and its title', () => {
    const svg = renderLayoutSvg({ dashboardMetadata: { name: 'Sketches' }, tiles: CASES.map(([tile], i) => at(i, tile)) });
    const tiles = drawnTiles(svg);
    expect(tiles.map((t) => [t.type, t.glyph, t.glyphShapes])).toEqual(CASES.map(([tile, glyph, shapes]) => [(tile as { tileType: string }).tileType, glyph, shapes]));
    // The title first: a custom chart's own name, else the tile's.
    expect(tiles.map((t) => t.texts[0])).toEqual(CASES.map(([tile], i) => (i === 2 ? 'CPU usage %' : `Tile ${i}`)));
    expect(tiles.find((t) => t.glyph === 'number')?.texts).toContain('42');
    expect(tiles.find((t) => t.glyph === 'markdown')?.texts).toContain('Runbook');
  });

  it('a Data Explorer title is its name, not the customName the service fills in; an unnamed tile has no title', () => {
    const place = (i: number, tile: object) => ({ ...at(i, {}), ...tile });
    const svg = renderLayoutSvg({ tiles: [place(0, { tileType: 'DATA_EXPLORER', name: 'Response time', customName: 'Data explorer results' }), place(1, { tileType: 'DATA_EXPLORER', name: undefined, customName: 'Only custom' }), place(2, { tileType: 'DATA_EXPLORER', name: ' ' })] });
    expect(drawnTiles(svg).map((t) => t.texts[0])).toEqual(['Response time', 'Only custom', 'data explorer']);
  });

  it('a tile too small for its sketch keeps its box, and a header its band', () => {
    const svg = renderLayoutSvg({ tiles: [{ tileType: 'DATA_EXPLORER', name: 'Tiny', bounds: { top: 0, left: 0, width: 38, height: 38 } }, { tileType: 'HEADER', name: 'Section', bounds: { top: 0, left: 38, width: 304, height: 38 } }] });
    const [tiny, header] = drawnTiles(svg);
    expect(tiny?.glyphShapes).toEqual([]);
    expect(header?.glyphShapes).toEqual(['rect']);
    expect(header?.texts).toEqual(['Section']);
  });

  it('scales any dashboard into the picture width with fonts of at least 11 px', () => {
    for (const file of corpusFiles) {
      const svg = renderLayoutSvg(JSON.parse(readFileSync(join(CORPUS_DASHBOARDS_DIR, file), 'utf8')));
      expect(svgSize(svg).width).toBe(PICTURE_WIDTH);
      expect(Math.min(...fontSizes(svg))).toBeGreaterThanOrEqual(11);
    }
  });
});

describe('svg text', () => {
  it('wraps words and marks cut text', () => {
    expect(wrap('one two three four', 9, 2)).toEqual(['one two', 'three …']);
    expect(wrap('a b', 10, 3)).toEqual(['a b']);
  });

  it('keeps link and image text, drops markup', () => {
    expect(markdownExcerpt('# Title\n- item `code`\n![logo](x.png) <br/> snake_case')).toBe('Title item code logo snake_case');
  });
});
