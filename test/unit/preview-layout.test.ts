import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { describe, expect, it } from 'vitest';
import { renderLayoutSvg } from '../../src/preview/render-layout.js';
import { markdownExcerpt, wrap } from '../../src/preview/svg-text.js';
import { CORPUS_DASHBOARDS_DIR } from '../helpers/corpus.js';
import { drawnTiles, svgSize } from '../helpers/svg-shapes.js';

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
    expect(new Resvg(svg).width).toBe(width);
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
    expect(tile?.texts).toEqual(['Notes', 'markdown', 'Runbook Call on-call first']);
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

describe('svg text', () => {
  it('wraps words and marks cut text', () => {
    expect(wrap('one two three four', 9, 2)).toEqual(['one two', 'three …']);
    expect(wrap('a b', 10, 3)).toEqual(['a b']);
  });

  it('keeps link and image text, drops markup', () => {
    expect(markdownExcerpt('# Title\n- item `code`\n![logo](x.png) <br/> snake_case')).toBe('Title item code logo snake_case');
  });
});
