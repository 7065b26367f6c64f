import type { PreviewTile } from './preview-model.js';
import { charsFor, escapeXml, markdownExcerpt, wrap } from './svg-text.js';

/**
 * What a tile shows, drawn as a small sketch so a reviewer recognises the dashboard in a picture (a line for a
 * chart, a big number for a single value, rows for a table, …) instead of a wall of empty boxes. Sketches, not data:
 * every chart of a kind looks the same.
 */
export type GlyphKind = 'line' | 'columns' | 'toplist' | 'number' | 'table' | 'list' | 'pie' | 'honeycomb' | 'heatmap' | 'map' | 'markdown' | 'header' | 'image' | 'entity';

/** The chart type names of Data Explorer (`visualConfig.type`), DTAQL (`type`) and custom charts (`chartConfig.type`). */
const BY_CHART_TYPE: Readonly<Record<string, GlyphKind>> = {
  GRAPH_CHART: 'line',
  LINE_CHART: 'line',
  STACKED_AREA: 'line',
  AREA_CHART: 'line',
  TIMESERIES: 'line',
  STACKED_COLUMN: 'columns',
  COLUMN_CHART: 'columns',
  BAR_CHART: 'columns',
  FUNNEL: 'toplist',
  TOP_LIST: 'toplist',
  SINGLE_VALUE: 'number',
  TABLE: 'table',
  PIE_CHART: 'pie',
  PIE: 'pie',
  HONEYCOMB: 'honeycomb',
  HEATMAP: 'heatmap',
};

/** Tile types that draw the same thing whatever their settings. */
const BY_TILE_TYPE: Readonly<Record<string, GlyphKind>> = {
  MARKDOWN: 'markdown',
  HEADER: 'header',
  IMAGE: 'image',
  OPEN_PROBLEMS: 'list',
  APPLICATION_WORLDMAP: 'map',
  HOSTS: 'honeycomb',
  SERVICES: 'honeycomb',
  APPLICATIONS: 'honeycomb',
  DATABASES_OVERVIEW: 'honeycomb',
  SYNTHETIC_TESTS: 'honeycomb',
  APPLICATIONS_MOST_ACTIVE: 'toplist',
  THIRD_PARTY_MOST_ACTIVE: 'toplist',
  UEM_KEY_USER_ACTIONS: 'toplist',
  SLO: 'number',
  USERS: 'number',
  BOUNCE_RATE: 'number',
  UEM_ACTIVE_SESSIONS: 'number',
  UEM_CONVERSIONS_OVERALL: 'number',
  UEM_CONVERSIONS_PER_GOAL: 'number',
  UEM_JSERRORS_OVERALL: 'number',
  SESSION_METRICS: 'number',
  DATA_EXPLORER_CODE: 'line',
  LOG_ANALYTICS: 'line',
};

/** Charting tiles without a chart type the table knows draw a line chart, the service's default chart. */
const CHARTS = new Set(['DATA_EXPLORER', 'CUSTOM_CHARTING', 'DTAQL']);

export function glyphKind(tile: PreviewTile): GlyphKind {
  const fixed = BY_TILE_TYPE[tile.tileType];
  if (fixed) return fixed;
  const chartType = tile.visualConfig?.type ?? tile.filterConfig?.chartConfig?.type ?? tile.type ?? '';
  return BY_CHART_TYPE[chartType] ?? (CHARTS.has(tile.tileType) ? 'line' : 'entity');
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const BLUE = '#0969da';
const LIGHT_BLUE = '#54aeff';
const GREY = '#d0d7de';
/** The same made-up series for every chart, so a sketch never looks like data. */
const WAVE = [0.35, 0.55, 0.45, 0.7, 0.5, 0.8, 0.6, 0.75];
export const EXCERPT_FONT = 11;

const n = (value: number): string => String(Math.round(value * 10) / 10);

/** The sketch of `kind` inside `box` (picture pixels), every element classed `glyph`; '' when the box is too small. */
export function glyphSvg(kind: GlyphKind, box: Box, tile: PreviewTile): string {
  if (box.w < 12 || box.h < 8) return '';
  return DRAW[kind](box, tile).join('');
}

const DRAW: Readonly<Record<GlyphKind, (box: Box, tile: PreviewTile) => string[]>> = {
  line: (b) => {
    const points = WAVE.map((v, i) => `${n(b.x + (i * b.w) / (WAVE.length - 1))},${n(b.y + b.h * (1 - v))}`);
    return [axis(b), `<polyline class="glyph" points="${points.join(' ')}" fill="none" stroke="${BLUE}" stroke-width="2"/>`];
  },
  columns: (b) => {
    const step = b.w / WAVE.length;
    return [axis(b), ...WAVE.map((v, i) => rect(b.x + i * step + step * 0.15, b.y + b.h * (1 - v), step * 0.7, b.h * v, BLUE))];
  },
  toplist: (b) => rows(b, 4).map((row, i) => rect(b.x, row.y, b.w * (1 - i * 0.2), row.h * 0.7, BLUE)),
  number: (b) => {
    const size = Math.max(EXCERPT_FONT, Math.min(36, b.h * 0.8, b.w / 2));
    return [`<text class="glyph" x="${n(b.x + b.w / 2)}" y="${n(b.y + b.h / 2 + size * 0.35)}" font-size="${n(size)}" font-weight="bold" text-anchor="middle" fill="${BLUE}">42</text>`];
  },
  table: (b) => {
    const all = rows(b, 5);
    return [
      ...all.map((row, i) => (i === 0 ? rect(b.x, row.y, b.w, row.h, GREY) : `<line class="glyph" x1="${n(b.x)}" y1="${n(row.y + row.h)}" x2="${n(b.x + b.w)}" y2="${n(row.y + row.h)}" stroke="${GREY}"/>`)),
      ...[0.4, 0.7].map((f) => `<line class="glyph" x1="${n(b.x + b.w * f)}" y1="${n(b.y)}" x2="${n(b.x + b.w * f)}" y2="${n(b.y + b.h)}" stroke="${GREY}"/>`),
    ];
  },
  list: (b) =>
    rows(b, 4).flatMap((row) => [
      `<circle class="glyph" cx="${n(b.x + row.h * 0.35)}" cy="${n(row.y + row.h * 0.35)}" r="${n(row.h * 0.3)}" fill="#cf222e"/>`,
      rect(b.x + row.h, row.y + row.h * 0.15, (b.w - row.h) * 0.8, row.h * 0.4, GREY),
    ]),
  pie: (b) => {
    const r = Math.min(b.w, b.h) / 2;
    const [cx, cy] = [b.x + b.w / 2, b.y + b.h / 2];
    const slice = `M${n(cx)},${n(cy)} L${n(cx)},${n(cy - r)} A${n(r)},${n(r)} 0 0 1 ${n(cx + r * Math.sin(2.3))},${n(cy - r * Math.cos(2.3))} Z`;
    return [`<circle class="glyph" cx="${n(cx)}" cy="${n(cy)}" r="${n(r)}" fill="${LIGHT_BLUE}"/>`, `<path class="glyph" d="${slice}" fill="${BLUE}"/>`];
  },
  honeycomb: (b) => {
    const r = Math.max(3, Math.min(9, b.h / 2.5));
    const count = Math.max(1, Math.min(8, Math.floor(b.w / (2 * r))));
    return Array.from({ length: count }, (_, i) => hexagon(b.x + r + i * 2 * r, b.y + r, r * 0.95, i === 2 ? '#cf222e' : '#2da44e'));
  },
  heatmap: (b) => {
    const [cols, lines] = [8, 3];
    return Array.from({ length: cols * lines }, (_, i) => {
      const [c, l] = [i % cols, Math.floor(i / cols)];
      const opacity = 0.25 + 0.7 * (WAVE[(c + l) % WAVE.length] ?? 0.5);
      return rect(b.x + (c * b.w) / cols, b.y + (l * b.h) / lines, b.w / cols - 1, b.h / lines - 1, BLUE, ` fill-opacity="${n(opacity)}"`);
    });
  },
  map: (b) => {
    const [rx, ry] = [Math.min(b.w / 2, b.h), b.h / 2];
    const [cx, cy] = [b.x + b.w / 2, b.y + b.h / 2];
    return [`<ellipse class="glyph" cx="${n(cx)}" cy="${n(cy)}" rx="${n(rx)}" ry="${n(ry)}" fill="#ddf4ff" stroke="${BLUE}"/>`, `<ellipse class="glyph" cx="${n(cx)}" cy="${n(cy)}" rx="${n(rx / 3)}" ry="${n(ry)}" fill="none" stroke="${BLUE}"/>`, `<line class="glyph" x1="${n(cx - rx)}" y1="${n(cy)}" x2="${n(cx + rx)}" y2="${n(cy)}" stroke="${BLUE}"/>`];
  },
  markdown: (b, tile) => {
    const room = Math.floor(b.h / (EXCERPT_FONT + 3));
    const lines = tile.markdown ? wrap(markdownExcerpt(tile.markdown), charsFor(b.w, EXCERPT_FONT), room) : [];
    if (lines.length === 0) return rows(b, 3).map((row, i) => rect(b.x, row.y, b.w * (i === 2 ? 0.5 : 0.9), Math.min(4, row.h * 0.4), GREY));
    return lines.map((line, i) => `<text class="glyph excerpt" x="${n(b.x)}" y="${n(b.y + EXCERPT_FONT + i * (EXCERPT_FONT + 3))}" font-size="${EXCERPT_FONT}" fill="#24292f">${escapeXml(line)}</text>`);
  },
  // A band along the bottom edge, under the title: a header reads as a section heading at any size.
  header: (b) => [rect(b.x, b.y + b.h - 3, b.w, 3, '#57606a')],
  image: (b) => {
    const [w, h] = [Math.min(b.w, b.h * 1.5), b.h];
    return [
      rect(b.x, b.y, w, h, '#ddf4ff'),
      `<polygon class="glyph" points="${n(b.x)},${n(b.y + h)} ${n(b.x + w * 0.35)},${n(b.y + h * 0.4)} ${n(b.x + w * 0.6)},${n(b.y + h * 0.75)} ${n(b.x + w * 0.75)},${n(b.y + h * 0.55)} ${n(b.x + w)},${n(b.y + h)}" fill="#2da44e"/>`,
      `<circle class="glyph" cx="${n(b.x + w * 0.8)}" cy="${n(b.y + h * 0.25)}" r="${n(h * 0.12)}" fill="#bf8700"/>`,
    ];
  },
  entity: (b) => {
    const r = Math.min(8, b.h / 2);
    return [`<circle class="glyph" cx="${n(b.x + r)}" cy="${n(b.y + r)}" r="${n(r)}" fill="none" stroke="${BLUE}" stroke-width="2"/>`, rect(b.x + 2.5 * r, b.y + r * 0.6, Math.min(b.w - 3 * r, 60), r * 0.8, GREY)];
  },
};

function axis(b: Box): string {
  return `<line class="glyph" x1="${n(b.x)}" y1="${n(b.y + b.h)}" x2="${n(b.x + b.w)}" y2="${n(b.y + b.h)}" stroke="${GREY}"/>`;
}

function rect(x: number, y: number, w: number, h: number, fill: string, extra = ''): string {
  return `<rect class="glyph" x="${n(x)}" y="${n(y)}" width="${n(Math.max(0, w))}" height="${n(Math.max(0, h))}" fill="${fill}"${extra}/>`;
}

/** Up to `count` equal rows filling the box, at least 6 px each (fewer rows in a short box). */
function rows(b: Box, count: number): { y: number; h: number }[] {
  const shown = Math.max(1, Math.min(count, Math.floor(b.h / 6)));
  const h = b.h / shown;
  return Array.from({ length: shown }, (_, i) => ({ y: b.y + i * h, h }));
}

function hexagon(cx: number, cy: number, r: number, fill: string): string {
  const points = [0, 1, 2, 3, 4, 5].map((i) => `${n(cx + r * Math.cos((Math.PI / 3) * i + Math.PI / 6))},${n(cy + r * Math.sin((Math.PI / 3) * i + Math.PI / 6))}`);
  return `<polygon class="glyph" points="${points.join(' ')}" fill="${fill}"/>`;
}
