import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { fileComparedForm } from '../../../src/documents/compared-form.js';
import { diffJson } from '../../../src/plan/diff.js';
import { renderBeforeAfterSvg } from '../../../src/preview/before-after.js';
import { documentGlyphSvg, visualizationGlyph } from '../../../src/preview/document-glyphs.js';
import { isDocumentValue, readPreviewDocument } from '../../../src/preview/document-preview-model.js';
import { patchedPicture, planPictures } from '../../../src/preview/plan-pictures.js';
import { markdownTitle, renderDocumentSvg } from '../../../src/preview/render-document.js';
import { renderLayoutSvg } from '../../../src/preview/render-layout.js';
import { escapeXml } from '../../../src/preview/svg-text.js';
import { MAX_BOX_COVER, MAX_CONTENT_HEIGHT, PICTURE_WIDTH } from '../../../src/preview/layout-frame.js';
import { MAX_PNG_PIXELS, svgToPng } from '../../../src/preview/render-png.js';
import { CORPUS_DOCUMENT_DASHBOARDS_DIR, CORPUS_NOTEBOOKS_DIR } from '../../helpers/corpus.js';
import { documentBoxes, documentLayouts } from '../../helpers/document-boxes.js';
import { drawnTiles, parsedSvgWidth, pngSize, svgSize } from '../../helpers/svg-shapes.js';

type Json = Record<string, unknown>;
const read = (dir: string, file: string): Json => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Json;
const jsonFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const dashboardFiles = jsonFiles(CORPUS_DOCUMENT_DASHBOARDS_DIR);
const notebookFiles = jsonFiles(CORPUS_NOTEBOOKS_DIR);

/** 768 px of content from x 16, under a 62 px header starting at y 0 (the content from y 70); rows are 24 px. */
const LEFT = 16;
const TOP = 70;
const WIDTH = 768;
const ROW = 24;

const dashboardFile = (content: Json, name = 'Board'): Json => ({ document: { kind: 'dashboard', name }, ...content });
const notebookFile = (content: Json, name = 'Book'): Json => ({ document: { kind: 'notebook', name }, ...content });
const dataTile = (title: string, visualization?: string) => ({ type: 'data', title, query: 'fetch logs', ...(visualization ? { visualization } : {}) });

/** The title as drawn, without its clip mark: the drawn text is the start of the escaped, space-collapsed title. */
function titleStart(drawn: string): string {
  return drawn.endsWith('…') ? drawn.slice(0, -1) : drawn;
}

describe('platform dashboard previews', () => {
  it('finds the corpus', () => {
    expect(dashboardFiles.length).toBeGreaterThan(50);
    expect(notebookFiles.length).toBeGreaterThan(15);
  });

  it.each(dashboardFiles)('draws every tile of %s at its layout, in key order, titled, as well-formed SVG', (file) => {
    const content = read(CORPUS_DOCUMENT_DASHBOARDS_DIR, file) as { tiles: Record<string, { type: string; title?: string; content?: string }>; layouts: Record<string, { x: number; y: number; w: number; h: number }>; settings?: { gridLayout?: { columnsCount?: number } } };
    const svg = renderLayoutSvg(dashboardFile(content, 'A <b> & "c"'));
    const { width, height } = svgSize(svg);
    expect(parsedSvgWidth(svg)).toBe(width);
    expect(svg).toContain('>A &lt;b&gt; &amp; &quot;c&quot;</text>');
    expect(svg).toContain('platform dashboard · ');
    const boxes = documentBoxes(svg);
    expect(boxes.map((b) => b.id)).toEqual(Object.keys(content.tiles));
    expect(boxes.map((b) => b.type)).toEqual(Object.values(content.tiles).map((t) => t.type));
    const columns = Math.max(content.settings?.gridLayout?.columnsCount ?? 24, ...Object.values(content.layouts).map((l) => l.x + l.w));
    for (const box of boxes) {
      const layout = content.layouts[box.id];
      if (!layout) throw new Error(`no layout ${box.id}`);
      expect(box.x).toBeCloseTo(LEFT + (layout.x * WIDTH) / columns, 0);
      expect(box.y).toBeCloseTo(TOP + layout.y * ROW, 0);
      expect(box.width).toBeCloseTo((layout.w * WIDTH) / columns - 2, 0);
      expect(box.height).toBeCloseTo(layout.h * ROW - 2, 0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      expect(box.y + box.height).toBeLessThanOrEqual(height);
      const tile = content.tiles[box.id];
      const title = (tile?.type === 'markdown' || tile?.type === 'annotation' ? '' : (tile?.title ?? '')).replace(/\s+/g, ' ').trim();
      if (title !== '' && box.width >= 40) expect(escapeXml(title).startsWith(titleStart(box.title ?? '(none)'))).toBe(true);
    }
    expect(renderLayoutSvg(structuredClone(dashboardFile(content, 'A <b> & "c"')))).toBe(svg);
  });

  it('draws a tile at x 12, w 12 of 24 columns in the right half, and one at 0, 12 in the left half', () => {
    const svg = renderDocumentSvg(dashboardFile({ tiles: { r: dataTile('Right', 'lineChart'), l: dataTile('Left', 'table') }, layouts: { r: { x: 12, y: 0, w: 12, h: 4 }, l: { x: 0, y: 4, w: 12, h: 2 } } }));
    const [right, left] = documentBoxes(svg);
    expect(right).toMatchObject({ id: 'r', x: 400, y: 70, width: 382, height: 94, title: 'Right', glyph: 'line' });
    expect(left).toMatchObject({ id: 'l', x: 16, y: 166, width: 382, height: 46, title: 'Left', glyph: 'table' });
    // Six rows of content: the canvas is the header, the rows and two pads high.
    expect(svgSize(svg).height).toBe(62 + 6 * ROW + 16);
  });

  it('widens the grid to settings.gridLayout.columnsCount, and to a layout reaching past it', () => {
    const forty = documentBoxes(renderDocumentSvg(dashboardFile({ tiles: { a: dataTile('A') }, layouts: { a: { x: 20, y: 0, w: 20, h: 2 } }, settings: { gridLayout: { columnsCount: 40 } } })));
    expect(forty[0]).toMatchObject({ x: 400, width: 382 });
    const past = documentBoxes(renderDocumentSvg(dashboardFile({ tiles: { a: dataTile('A') }, layouts: { a: { x: 24, y: 0, w: 8, h: 2 } } })));
    expect(past[0]).toMatchObject({ x: 16 + 576, width: 190 });
  });

  it('titles markdown by its first heading (else first line) and shows the rest; data tiles by title; header names, kind and details', () => {
    const svg = renderDocumentSvg({
      document: { kind: 'dashboard', name: 'Checkout', description: 'Errors of checkout', isPrivate: true },
      variables: [{ key: 'Service', type: 'text' }, { type: 'text' }],
      tiles: { m: { type: 'markdown', content: 'intro line\n## **Checkout** status\nSee [the runbook](https://x) now' }, p: { type: 'markdown', content: '\n\nplain first\nsecond' }, d: dataTile('Errors <5xx>', 'singleValue'), s: { type: 'slo', title: 'Availability', input: 'x' } },
      layouts: { m: { x: 0, y: 0, w: 24, h: 4 }, p: { x: 0, y: 4, w: 24, h: 1 }, d: { x: 0, y: 5, w: 6, h: 4 }, s: { x: 6, y: 5, w: 6, h: 4 } },
    });
    const [m, p, d, s] = documentBoxes(svg);
    expect(m).toMatchObject({ title: 'Checkout status', glyph: 'markdown' });
    expect(m?.texts).toEqual(['Checkout status', 'intro line See the runbook now', 'markdown']);
    expect(p).toMatchObject({ title: 'plain first', glyph: 'markdown' });
    expect(d).toMatchObject({ title: 'Errors &lt;5xx&gt;', glyph: 'number' });
    expect(d?.texts).toContain('data · singleValue');
    expect(s).toMatchObject({ title: 'Availability', glyph: 'number', type: 'slo' });
    expect(svg).toContain('<text class="kind" x="16" y="39" fill="#57606a">platform dashboard · 4 tiles · private</text>');
    expect(svg).toContain('<text class="details" x="16" y="55" fill="#57606a">Errors of checkout · variables: $Service</text>');
    const bare = renderDocumentSvg(dashboardFile({ tiles: { a: dataTile('A') }, layouts: { a: { x: 0, y: 0, w: 4, h: 4 } } }));
    expect(bare).toContain('>platform dashboard · 1 tile · public</text>');
    expect(bare).toContain('>no description</text>');
  });

  it('maps the apps\' visualization names onto the classic sketches, and anything else onto a neutral one', () => {
    const expected: Record<string, string> = {
      lineChart: 'line', areaChart: 'line', bandChart: 'line', davis: 'line', barChart: 'columns', histogram: 'columns', categoricalBarChart: 'toplist', meterBar: 'toplist',
      pieChart: 'pie', donutChart: 'pie', singleValue: 'number', gauge: 'number', table: 'table', recordView: 'table', raw: 'table', honeycomb: 'honeycomb', heatmap: 'heatmap',
      choropleth: 'map', dotMap: 'map', bubbleMap: 'map', connectionMap: 'map', sankey: 'neutral', toString: 'neutral', '': 'neutral',
    };
    for (const [name, glyph] of Object.entries(expected)) expect([name, visualizationGlyph(name)]).toEqual([name, glyph]);
    const names = Object.keys(expected);
    const tiles = Object.fromEntries(names.map((v, i) => [String(i), dataTile(`T${i}`, v)]));
    const layouts = Object.fromEntries(names.map((_, i) => [String(i), { x: 0, y: i * 5, w: 8, h: 5 }]));
    const boxes = documentBoxes(renderDocumentSvg(dashboardFile({ tiles, layouts })));
    expect(boxes.map((b) => b.glyph)).toEqual(Object.values(expected));
    const neutral = boxes.find((b) => b.id === String(names.indexOf('sankey')));
    expect(neutral?.sketch).toEqual(['rect']);
    expect(neutral?.texts).toEqual(['T21', 'data · sankey']);
  });

  it('sketches code as a brace over indented bars, neutral as a dashed box, nothing in a box too small', () => {
    const bar = (x: string, y: string, w: string, h: string) => `<rect class="glyph" x="${x}" y="${y}" width="${w}" height="${h}" fill="#d0d7de"/>`;
    expect(documentGlyphSvg('code', { x: 0.33, y: 0, w: 100, h: 60 })).toBe(
      '<text class="glyph" x="0.3" y="10" font-size="10" font-family="monospace" fill="#8c959f">{ }</text>' +
        bar('20.3', '12.5', '48', '5') + bar('30.3', '22.5', '56', '5') + bar('40.3', '32.5', '40', '5') + bar('30.3', '42.5', '24', '5') + bar('20.3', '52.5', '12', '5'),
    );
    // Lines at most 12 px apart and indents at most 12 px; at least 4 px apart, as many lines as fit under the brace.
    const tall = documentGlyphSvg('code', { x: 0, y: 100, w: 200, h: 120 });
    expect(tall.startsWith('<text class="glyph" x="0" y="112" font-size="12"')).toBe(true);
    expect(tall).toContain(bar('24', '115', '96', '6'));
    const short = documentGlyphSvg('code', { x: 0, y: 0, w: 40, h: 20 });
    expect(short.startsWith('<text class="glyph" x="0" y="4" font-size="8"')).toBe(true);
    expect(short.match(/<rect/g)).toHaveLength(4);
    expect(documentGlyphSvg('neutral', { x: 1, y: 2, w: 30, h: 20 })).toBe('<rect class="glyph" x="1" y="2" width="30" height="20" rx="4" fill="#f6f8fa" stroke="#8c959f" stroke-dasharray="4 3"/>');
    for (const glyph of ['code', 'neutral', 'line'] as const) {
      expect(documentGlyphSvg(glyph, { x: 0, y: 0, w: 11.9, h: 50 })).toBe('');
      expect(documentGlyphSvg(glyph, { x: 0, y: 0, w: 50, h: 7.9 })).toBe('');
      expect(documentGlyphSvg(glyph, { x: 0, y: 0, w: 12, h: 8 })).not.toBe('');
    }
    // A markdown sketch shows the text it is given, and grey bars without one.
    expect(documentGlyphSvg('markdown', { x: 0, y: 0, w: 200, h: 40 }, 'Hello there')).toContain('>Hello there</text>');
    expect(documentGlyphSvg('markdown', { x: 0, y: 0, w: 200, h: 40 })).not.toContain('<text');
  });

  it('draws a code tile without a visualization as code, a data tile without one as neutral, an unknown tile type as neutral', () => {
    const svg = renderDocumentSvg(dashboardFile({
      tiles: { c: { type: 'code', title: 'Fn', input: 'export default () => 1' }, v: { type: 'code', title: 'Tbl', input: 'x', visualization: 'table' }, d: { type: 'data', title: 'Q', query: 'fetch logs' }, u: { type: 'weird', title: 'W' } },
      layouts: { c: { x: 0, y: 0, w: 8, h: 5 }, v: { x: 8, y: 0, w: 8, h: 5 }, d: { x: 16, y: 0, w: 8, h: 5 }, u: { x: 0, y: 5, w: 8, h: 5 } },
    }));
    const boxes = documentBoxes(svg);
    expect(boxes.map((b) => [b.id, b.glyph])).toEqual([['c', 'code'], ['v', 'table'], ['d', 'neutral'], ['u', 'neutral']]);
    expect(boxes[0]?.sketch).toEqual(['text', 'rect', 'rect', 'rect', 'rect', 'rect']);
    expect(boxes[0]?.texts).toEqual(['Fn', '{ }', 'code']);
    expect(boxes[1]?.texts).toContain('code · table');
  });

  it('stacks tiles without a layout under the others, full width, two rows each', () => {
    const boxes = documentBoxes(renderDocumentSvg(dashboardFile({ tiles: { a: dataTile('A'), lost: dataTile('Lost'), b: dataTile('B'), gone: dataTile('Gone') }, layouts: { a: { x: 0, y: 0, w: 6, h: 3 }, b: { x: 6, y: 1, w: 6, h: 4 }, gone: 'nowhere' } })));
    expect(boxes.map((b) => [b.id, b.x, b.y, b.width, b.height])).toEqual([['a', 16, 70, 190, 70], ['lost', 16, 70 + 5 * ROW, 766, 46], ['b', 208, 94, 190, 94], ['gone', 16, 70 + 7 * ROW, 766, 46]]);
  });
});

describe('notebook previews', () => {
  it.each(notebookFiles)('draws the sections of %s in order, top to bottom, as well-formed SVG', (file) => {
    const content = read(CORPUS_NOTEBOOKS_DIR, file) as { sections: { id: string; type: string; title?: string; markdown?: string }[] };
    const svg = renderLayoutSvg(notebookFile(content));
    expect(parsedSvgWidth(svg)).toBe(800);
    expect(svg).toContain(`notebook · ${content.sections.length} section`);
    const boxes = documentBoxes(svg);
    expect(boxes.map((b) => b.id)).toEqual(content.sections.map((_, i) => String(i)));
    expect(boxes.map((b) => b.type)).toEqual(content.sections.map((s) => s.type));
    for (const [i, box] of boxes.entries()) {
      expect(box).toMatchObject({ x: 16, width: 766 });
      if (i > 0) expect(box.y).toBe((boxes[i - 1]?.y ?? 0) + (boxes[i - 1]?.height ?? 0) + 6);
      const section = content.sections[i];
      if (section?.title?.trim()) expect(escapeXml(section.title.replace(/\s+/g, ' ').trim()).startsWith(titleStart(box.title ?? '(none)'))).toBe(true);
    }
  });

  it('shows a markdown section\'s first line, a dql section\'s title and query line and its visualization, a function as code', () => {
    const svg = renderDocumentSvg({
      document: { kind: 'notebook', name: 'Triage', description: 'Steps' },
      defaultTimeframe: { from: 'now()-2h', to: 'now()' },
      sections: [
        { id: 'm', type: 'markdown', markdown: '\n# Step *one*\nmore text' },
        { id: 'q', type: 'dql', title: 'Errors', state: { input: { value: '\nfetch logs\n| filter x' }, visualization: 'lineChart' } },
        { id: 'n', type: 'dql', state: { input: { value: 'fetch spans' } } },
        { id: 'v', type: 'dql', state: { input: { value: 'fetch events' }, visualization: 'mystery' } },
        { id: 'f', type: 'function', state: { input: { value: 'export default async function () {\n}' } } },
        { id: 'u', type: 'other' },
      ],
    });
    const boxes = documentBoxes(svg);
    expect(boxes.map((b) => [b.id, b.glyph, b.height])).toEqual([['0', 'markdown', 26], ['1', 'line', 96], ['2', 'none', 48], ['3', 'neutral', 96], ['4', 'code', 96], ['5', 'neutral', 96]]);
    expect(boxes.map((b) => b.texts.filter((t) => t !== '{ }'))).toEqual([['Step *one*'], ['Errors', 'dql: fetch logs'], ['fetch spans', 'dql'], ['fetch events', 'dql · mystery'], ['export default async function () {', 'function'], ['other']]);
    expect(boxes.map((b) => b.y)).toEqual([70, 102, 204, 258, 360, 462]);
    expect(svg).toContain('>notebook · 6 sections · public</text>');
    expect(svg).toContain('>Steps · timeframe: now()-2h – now()</text>');
    expect(svgSize(svg).height).toBe(62 + 6 * 6 + 26 + 96 * 4 + 48 + 16);
  });

  it('draws an empty notebook as its header over a four-row canvas', () => {
    const svg = renderDocumentSvg(notebookFile({ sections: [] }));
    expect(documentBoxes(svg)).toEqual([]);
    expect(svgSize(svg).height).toBe(62 + 4 * ROW + 16);
    expect(svg).toContain('>notebook · 0 sections · public</text>');
    expect(svg).toContain('>no description</text>');
  });
});

describe('kind dispatch and loose reading', () => {
  it('draws a value with a document: mapping as a document, anything else as a classic dashboard', () => {
    expect(isDocumentValue({ document: {} })).toBe(true);
    for (const value of [{ document: 'x' }, { document: null }, { document: [] }, [], null, 'x', { tiles: {} }]) expect(isDocumentValue(value)).toBe(false);
    const classic = renderLayoutSvg({ dashboardMetadata: { name: 'C' }, tiles: [{ tileType: 'MARKDOWN', markdown: 'hi', bounds: { top: 0, left: 0, width: 304, height: 152 } }] });
    expect(drawnTiles(classic).map((t) => t.type)).toEqual(['MARKDOWN']);
    expect(classic).toContain('no tags');
    // Classic marks are by index: not handed to a document's boxes, keyed by tile key.
    const doc = renderLayoutSvg(dashboardFile({ tiles: { 0: dataTile('A', 'table') }, layouts: { 0: { x: 0, y: 0, w: 4, h: 4 } } }), { marks: new Map([[0, 'changed']]), caption: 'cap' });
    expect(documentBoxes(doc)[0]?.mark).toBeUndefined();
    expect(doc).toContain('>cap</text>');
  });

  it('reads the kind off the content when document.kind is neither', () => {
    expect(readPreviewDocument({ document: { kind: 'nope' }, sections: [] }).kind).toBe('notebook');
    expect(readPreviewDocument({ document: { kind: 'nope' }, tiles: {} }).kind).toBe('dashboard');
    expect(readPreviewDocument({ document: { kind: 'dashboard' }, sections: [] }).kind).toBe('dashboard');
    expect(readPreviewDocument({ document: { kind: 'notebook' }, tiles: {} }).kind).toBe('notebook');
    expect(readPreviewDocument({ document: {} }).name).toBe('(unnamed)');
  });

  it('draws whatever it can from bad data, never throws', () => {
    const bad: Json[] = [
      { document: { kind: 'dashboard', name: 7, description: ['x'], isPrivate: 'yes' }, tiles: 'none', layouts: 3, variables: 'x', settings: { gridLayout: { columnsCount: -4 } } },
      { document: { kind: 'dashboard' }, tiles: { a: null, b: { type: 5, title: {}, visualization: 9 }, c: { type: 'markdown', content: null } }, layouts: { a: { x: 'one', y: -3, w: 0, h: null }, b: [], c: { x: 1e9, y: 0, w: 1, h: 1 } } },
      { document: { kind: 'notebook', name: '' }, sections: 'x', defaultTimeframe: 'today' },
      { document: { kind: 'notebook' }, sections: [null, 3, { type: 'dql', state: 'x' }, { type: 'dql', state: { input: 5, visualization: {} } }, { type: 'markdown', markdown: 5 }] },
    ];
    for (const value of bad) {
      const svg = renderLayoutSvg(value);
      expect(parsedSvgWidth(svg)).toBe(800);
    }
    const loose = documentBoxes(renderLayoutSvg(bad[1] as Json));
    expect(loose.map((b) => [b.id, b.type, b.glyph])).toEqual([['a', 'unknown', 'neutral'], ['b', 'unknown', 'neutral'], ['c', 'markdown', 'markdown']]);
    expect(renderLayoutSvg(bad[0] as Json)).toContain('>(unnamed)</text>');
  });

  it('takes a markdown title from the first heading, else the first line with text', () => {
    expect(markdownTitle('a\n### Big *one*\nb')).toEqual({ title: 'Big *one*', rest: 'a\nb' });
    expect(markdownTitle('\n  \nfirst\n# later')).toEqual({ title: 'later', rest: '\n  \nfirst' });
    expect(markdownTitle('  \n**first**\nnext')).toEqual({ title: 'first', rest: '  \nnext' });
    expect(markdownTitle(' \n ')).toEqual({ title: '', rest: '' });
    expect(markdownTitle('#hashtag\nx')).toEqual({ title: '#hashtag', rest: 'x' });
  });
});

/** An update as the plan makes it for documents: the patch between compared forms, drawn by patchedPicture. */
function documentUpdate(live: Json, desired: Json): string {
  const { patch, before } = diffJson(fileComparedForm(live, []), fileComparedForm(desired, []));
  const change = { action: 'update', kind: 'document', id: 'd', name: 'D', file: 'team/d.yaml', desired, patch, before };
  return patchedPicture(change as unknown as Parameters<typeof patchedPicture>[0]).svg;
}

describe('before/after pictures of documents', () => {
  const LIVE = dashboardFile({
    version: 21,
    tiles: { title: { type: 'markdown', content: '# Hosts' }, moves: dataTile('Moves', 'lineChart'), grows: dataTile('Grows', 'table'), edited: dataTile('Edited', 'pieChart'), gone: dataTile('Gone', 'barChart'), 'a/b': dataTile('Slash', 'table') },
    layouts: { title: { x: 0, y: 0, w: 24, h: 1 }, moves: { x: 0, y: 1, w: 8, h: 4 }, grows: { x: 8, y: 1, w: 8, h: 4 }, edited: { x: 16, y: 1, w: 8, h: 4 }, gone: { x: 0, y: 5, w: 8, h: 4 }, 'a/b': { x: 8, y: 5, w: 8, h: 4 } },
  });

  it('marks a moved tile (a layout change) as moved on both sides, and resized, changed, added and removed tiles by key', () => {
    const desired = structuredClone(LIVE) as { tiles: Json; layouts: Record<string, { x: number; y: number; w: number; h: number }> };
    desired.layouts.moves = { x: 0, y: 9, w: 8, h: 4 };
    desired.layouts.grows = { x: 8, y: 1, w: 16, h: 4 };
    desired.layouts['a/b'] = { x: 9, y: 5, w: 9, h: 4 };
    desired.tiles.edited = dataTile('Edited', 'donutChart');
    delete desired.tiles.gone;
    delete desired.layouts.gone;
    desired.tiles.added = dataTile('Added', 'singleValue');
    desired.layouts.added = { x: 0, y: 5, w: 4, h: 4 };
    const svg = documentUpdate(LIVE, desired as Json);
    const [before, after] = documentLayouts(svg);
    const marks = (boxes: typeof before) => Object.fromEntries((boxes ?? []).filter((b) => b.mark).map((b) => [b.id, b.mark]));
    expect(marks(before)).toEqual({ moves: 'moved', grows: 'resized', edited: 'changed', gone: 'removed', 'a/b': 'moved-resized' });
    expect(marks(after)).toEqual({ moves: 'moved', grows: 'resized', edited: 'changed', added: 'added', 'a/b': 'moved-resized' });
    // The live side is the live layout: the moved tile where it was, the removed one still there.
    expect(before?.find((b) => b.id === 'moves')?.y).toBe(26 + 70 + ROW);
    expect(after?.find((b) => b.id === 'moves')?.y).toBeGreaterThan(before?.find((b) => b.id === 'moves')?.y ?? 0);
    expect(svg).toContain('>before (live)</text>');
    expect(svg).toContain('>after (desired)</text>');
    expect(svg).not.toContain('class="header-changed"');
    expect(svg).not.toContain('name, description or settings changed');
  });

  it('outlines the header when the name, description or a setting changes, and says so in the legend', () => {
    const svg = documentUpdate(LIVE, { ...LIVE, document: { kind: 'dashboard', name: 'Renamed' }, version: 22 });
    expect(svg.match(/class="header-changed"/g)).toHaveLength(2);
    expect(svg).toContain('>name, description or settings changed</text>');
    expect(documentLayouts(svg).flat().filter((b) => b.mark)).toEqual([]);
  });

  it('marks every tile when the tiles map is replaced whole', () => {
    const svg = renderBeforeAfterSvg({ before: LIVE, after: dashboardFile({ tiles: { n: dataTile('N') }, layouts: { n: { x: 0, y: 0, w: 4, h: 4 } } }), patch: [{ op: 'replace', path: '/tiles', value: {} }] });
    const [before, after] = documentLayouts(svg);
    expect(new Set(before?.map((b) => b.mark))).toEqual(new Set(['removed']));
    expect(after?.map((b) => [b.id, b.mark])).toEqual([['n', 'added']]);
  });

  it('marks notebook sections by place: edited, inserted and removed', () => {
    const section = (id: string, query: string) => ({ id, type: 'dql', title: id, state: { input: { value: query }, visualization: 'table' } });
    const live = notebookFile({ version: '7', sections: [section('a', 'fetch a'), section('b', 'fetch b'), section('c', 'fetch c')] });
    const inserted = notebookFile({ version: '7', sections: [section('a', 'fetch a'), { id: 'm', type: 'markdown', markdown: '# New' }, section('b', 'fetch b'), section('c', 'fetch c2')] });
    const svg = documentUpdate(live, inserted);
    const [before, after] = documentLayouts(svg);
    expect(before?.map((b) => [b.title, b.mark ?? ''])).toEqual([['a', ''], ['b', ''], ['c', 'changed']]);
    expect(after?.map((b) => [b.title, b.mark ?? ''])).toEqual([['a', ''], ['New', 'added'], ['b', ''], ['c', 'changed']]);
    expect(svg).not.toContain('class="header-changed"');
    const [liveSide, desiredSide] = documentLayouts(documentUpdate(live, notebookFile({ version: '7', sections: [section('a', 'fetch a'), section('c', 'fetch c')] })));
    expect(liveSide?.map((b) => [b.title, b.mark ?? ''])).toEqual([['a', ''], ['b', 'removed'], ['c', '']]);
    expect(desiredSide?.map((b) => [b.title, b.mark ?? ''])).toEqual([['a', ''], ['c', '']]);
    const renamed = documentUpdate(live, { ...live, document: { kind: 'notebook', name: 'Renamed' } });
    expect(renamed.match(/class="header-changed"/g)).toHaveLength(2);
    expect(documentLayouts(renamed).flat().filter((b) => b.mark)).toEqual([]);
  });

  it('draws a created document as one layout, captioned with its kind', () => {
    const create = (desired: Json) => planPictures({ changes: [{ action: 'create', kind: 'document', id: 'x', name: 'X', file: 'x.yaml', desired }] } as unknown as Parameters<typeof planPictures>[0])[0]?.svg ?? '';
    expect(create(LIVE)).toContain('>new platform dashboard</text>');
    expect(create(notebookFile({ sections: [] }))).toContain('>new notebook</text>');
    expect(documentLayouts(create(LIVE))).toHaveLength(1);
  });

  it('marks document changes by key from the patch alone', () => {
    const op = (path: string, o: Operation['op'] = 'replace'): Operation => ({ op: o, path, value: 1 }) as Operation;
    const marks = (patch: Operation[]) => Object.fromEntries(documentLayouts(renderBeforeAfterSvg({ before: LIVE, after: LIVE, patch }))[1]?.filter((b) => b.mark).map((b) => [b.id, b.mark]) ?? []);
    expect(marks([op('/layouts/moves/x')])).toEqual({ moves: 'moved' });
    expect(marks([op('/layouts/moves/h')])).toEqual({ moves: 'resized' });
    expect(marks([op('/layouts/moves')])).toEqual({ moves: 'moved' });
    expect(marks([op('/layouts/moves/x/deep')])).toEqual({ moves: 'changed' });
    expect(marks([op('/layouts/moves/z')])).toEqual({ moves: 'changed' });
    expect(marks([op('/layouts/moves/w'), op('/tiles/moves/title')])).toEqual({ moves: 'changed' });
    expect(marks([op('/tiles/moves')])).toEqual({ moves: 'changed' });
    expect(marks([op('/tiles/a~1b/title')])).toEqual({ 'a/b': 'changed' });
    expect(marks([op('/tiles/moves', 'add'), op('/layouts/moves', 'add')])).toEqual({ moves: 'added' });
  });
});

describe('a layout taller than any picture draws', () => {
  // A committed file at `y: 100000000` (valid: layouts bound no row) had `preview --format png` and `plan
  // --preview-dir` take 24 GB in resvg, outside any heap limit; 2,000 rows took 1.3 GB.
  const tall = (y: number): Json => dashboardFile({ tiles: { '0': dataTile('Top'), '1': dataTile('Far down') }, layouts: { '0': { x: 0, y: 0, w: 24, h: 4 }, '1': { x: 0, y, w: 24, h: y } } });

  it('cuts the picture at MAX_CONTENT_HEIGHT and says where, and its PNG stays within MAX_PNG_PIXELS', () => {
    for (const y of [2_000, 100_000_000]) {
      const svg = renderLayoutSvg(tall(y));
      const { height } = svgSize(svg);
      expect(height, String(y)).toBeLessThanOrEqual(MAX_CONTENT_HEIGHT + 200);
      expect(svg).toContain(`cut at ${MAX_CONTENT_HEIGHT} px: the layout is ${2 * y * ROW} px tall`);
      const png = pngSize(svgToPng(svg));
      expect(png.width * png.height, String(y)).toBeLessThanOrEqual(MAX_PNG_PIXELS);
      expect(png.height / png.width).toBeCloseTo(height / PICTURE_WIDTH, 1);
    }
    // Before and after, each cut: the pair is rendered smaller rather than larger.
    const [before, after] = [fileComparedForm(tall(100_000_000), []), fileComparedForm(tall(50_000_000), [])];
    const pair = renderBeforeAfterSvg({ before, after, patch: diffJson(before, after).patch });
    const png = pngSize(svgToPng(pair));
    expect(png.width * png.height).toBeLessThanOrEqual(MAX_PNG_PIXELS);
  });

  it('leaves out boxes past the cut and draws none taller than it: resvg aborted the process on text that far out', () => {
    const classic = { dashboardMetadata: { name: 'Far', owner: 'me' }, tiles: [{ name: 'Far down', tileType: 'MARKDOWN', bounds: { top: 100_000_000, left: 0, width: 304, height: 152 }, markdown: 'x' }] };
    const tallBox = dashboardFile({ tiles: { '0': dataTile('Tall') }, layouts: { '0': { x: 0, y: 0, w: 24, h: 100_000_000 } } });
    for (const dashboard of [classic, tallBox, tall(100_000_000)]) {
      const svg = renderLayoutSvg(dashboard);
      const ys = [...svg.matchAll(/ y="(-?[\d.]+)"/g)].map((m) => Number(m[1]));
      expect(Math.max(...ys)).toBeLessThanOrEqual(svgSize(svg).height);
      expect(pngSize(svgToPng(svg)).width).toBeGreaterThan(0);
    }
    expect(renderLayoutSvg(classic)).not.toContain('Far down');
  });

  it('draws boxes until they would cover the picture MAX_BOX_COVER times, and says how many it left out', () => {
    // 8,000 full-height tiles stacked in one place held preview --format png 257 s, each one filled in turn.
    const count = 50;
    const tiles = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), dataTile(`Stacked ${i}`)]));
    const layouts = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), { x: 0, y: 0, w: 24, h: 1_000 }]));
    const svg = renderLayoutSvg(dashboardFile({ tiles, layouts }));
    const drawn = (svg.match(/data-tile="/g) ?? []).length;
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(count);
    expect(drawn * WIDTH * MAX_CONTENT_HEIGHT).toBeLessThanOrEqual(MAX_BOX_COVER * PICTURE_WIDTH * MAX_CONTENT_HEIGHT);
    expect(svg).toContain(`; ${count - drawn} of ${count} boxes not drawn: together they would cover the picture more than ${MAX_BOX_COVER} times`);
    // A layout whose tiles cover it once is drawn whole.
    const side = Object.fromEntries(Array.from({ length: count }, (_, i) => [String(i), { x: 0, y: i * 4, w: 24, h: 4 }]));
    expect((renderLayoutSvg(dashboardFile({ tiles, layouts: side })).match(/data-tile="/g) ?? []).length).toBe(count);
  });

  it('leaves a picture within the bound whole, at twice its size', () => {
    const svg = renderLayoutSvg(tall(40));
    expect(svg).not.toContain('cut at');
    expect(pngSize(svgToPng(svg))).toEqual({ width: 2 * PICTURE_WIDTH, height: 2 * svgSize(svg).height });
  });
});
