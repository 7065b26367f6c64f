import type { PreviewTile } from './preview-model.js';
import { glyphSvg, type Box, type GlyphKind } from './tile-glyphs.js';

/**
 * The sketches of platform documents' tiles and sections: the classic sketch of the same chart where the apps'
 * `visualization` names one (tile-glyphs.ts draws it), and two of their own: code (a function, or a code tile that
 * names no visualization) and neutral (a visualization no table here knows, so a new chart type still reads as
 * "something is shown here" rather than a wrong chart).
 */
export type DocumentGlyph = GlyphKind | 'code' | 'neutral';

/** The Dashboards and Notebooks apps' visualization names (every one the corpus uses, and their near kin). */
const BY_VISUALIZATION: Readonly<Record<string, GlyphKind>> = {
  lineChart: 'line',
  areaChart: 'line',
  bandChart: 'line',
  davis: 'line',
  barChart: 'columns',
  histogram: 'columns',
  categoricalBarChart: 'toplist',
  meterBar: 'toplist',
  pieChart: 'pie',
  donutChart: 'pie',
  singleValue: 'number',
  gauge: 'number',
  table: 'table',
  recordView: 'table',
  raw: 'table',
  honeycomb: 'honeycomb',
  heatmap: 'heatmap',
  choropleth: 'map',
  dotMap: 'map',
  bubbleMap: 'map',
  connectionMap: 'map',
};

/** The sketch of a visualization name; neutral for a name no table here knows. */
export function visualizationGlyph(visualization: string): DocumentGlyph {
  return Object.hasOwn(BY_VISUALIZATION, visualization) ? (BY_VISUALIZATION[visualization] as GlyphKind) : 'neutral';
}

const GREY = '#d0d7de';
const DARK_GREY = '#8c959f';
const n = (value: number): string => String(Math.round(value * 10) / 10);

/** Indents and lengths of the made-up code lines, the same for every function (a sketch, not the code). */
const CODE_LINES: readonly (readonly [number, number])[] = [[0, 0.6], [1, 0.7], [2, 0.5], [1, 0.3], [0, 0.15]];

/**
 * The sketch of `glyph` inside `box`, every element classed `glyph`; '' when the box is too small, as for classic
 * sketches. `markdown` is the text a markdown sketch shows.
 */
export function documentGlyphSvg(glyph: DocumentGlyph, box: Box, markdown = ''): string {
  if (box.w < 12 || box.h < 8) return '';
  if (glyph === 'neutral') return `<rect class="glyph" x="${n(box.x)}" y="${n(box.y)}" width="${n(box.w)}" height="${n(box.h)}" rx="4" fill="#f6f8fa" stroke="${DARK_GREY}" stroke-dasharray="4 3"/>`;
  if (glyph === 'code') return codeSvg(box);
  const tile: PreviewTile = { tileType: 'UNKNOWN', markdown };
  return glyphSvg(glyph, box, tile);
}

/** Indented grey bars after a `{`: code at a glance. */
function codeSvg(b: Box): string {
  const step = Math.max(4, Math.min(12, b.h / (CODE_LINES.length + 1)));
  const indent = Math.min(12, b.w / 10);
  const shown = Math.max(1, Math.min(CODE_LINES.length, Math.floor(b.h / step) - 1));
  const brace = `<text class="glyph" x="${n(b.x)}" y="${n(b.y + step)}" font-size="${n(Math.max(8, step))}" font-family="monospace" fill="${DARK_GREY}">{ }</text>`;
  const bars = CODE_LINES.slice(0, shown).map(([depth, length], i) => `<rect class="glyph" x="${n(b.x + indent * (depth + 2))}" y="${n(b.y + step * (i + 1) + step * 0.25)}" width="${n(b.w * length * 0.8)}" height="${n(step * 0.5)}" fill="${GREY}"/>`);
  return [brace, ...bars].join('');
}
