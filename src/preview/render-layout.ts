import { filterTexts, GRID, placeTiles, readPreviewDashboard, tileTitle, type PlacedTile, type PreviewDashboard } from './preview-model.js';
import { charsFor, clip, escapeXml } from './svg-text.js';
import { glyphKind, glyphSvg } from './tile-glyphs.js';
import type { TileMark } from './tile-changes.js';

export type { TileMark };

/**
 * Every picture is this wide: GitHub shows a comment's images at up to about 800 px, so a picture drawn at that
 * width keeps its font sizes when shown there (none under SMALL_FONT), however wide the dashboard. The dashboard is
 * scaled into it; the PNG is rendered at twice the size for sharp text on dense screens (render-png.ts).
 */
export const PICTURE_WIDTH = 800;
export const SMALL_FONT = 11;
const TEXT_FONT = 12;
const CAPTION_FONT = 16;
const NAME_FONT = 15;

export const MARK_COLOURS: Readonly<Record<TileMark, { stroke: string; fill: string }>> = {
  added: { stroke: '#1a7f37', fill: '#dafbe1' },
  removed: { stroke: '#cf222e', fill: '#ffebe9' },
  changed: { stroke: '#bf8700', fill: '#fff8c5' },
  moved: { stroke: '#0969da', fill: '#ddf4ff' },
  resized: { stroke: '#0969da', fill: '#ddf4ff' },
  'moved-resized': { stroke: '#0969da', fill: '#ddf4ff' },
};

/** The short label a marked tile carries, in the mark's colour. */
export const MARK_LABELS: Readonly<Record<TileMark, string>> = {
  added: 'added',
  removed: 'removed',
  changed: 'changed',
  moved: 'moved',
  resized: 'resized',
  'moved-resized': 'moved + resized',
};

export interface LayoutOptions {
  /** Marks by tile index. */
  marks?: ReadonlyMap<number, TileMark>;
  /** The dashboard's name, tags or filters changed: the header is outlined amber. */
  headerChanged?: boolean;
  /** Offset of the whole layout, for stacking several into one picture. */
  y?: number;
  /** A caption above the header ("before", "after"). */
  caption?: string;
}

/** SVG elements for one dashboard layout, with the height they take (the width is PICTURE_WIDTH). */
export interface LayoutPart {
  height: number;
  body: string;
}

const PAD = 8;
const CAPTION_HEIGHT = 26;
export const HEADER_HEIGHT = 62;
/** A narrow dashboard is drawn at the scale of the service's default width of 32 grid columns, not blown up. */
const MIN_DASHBOARD_WIDTH = 32 * GRID;
/** Room under a tile's name for its sketch, and above its type label when the tile is tall enough for one. */
const NAME_LINE = 18;
/** The bottom line of a tall tile: its type, and its badge when marked. */
const FOOT_LINE = 18;
const BADGE_HEIGHT = 15;

export const SVG_OPEN_ATTRIBUTES = `xmlns="http://www.w3.org/2000/svg" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="${TEXT_FONT}"`;

const n = (value: number): string => String(Math.round(value * 10) / 10);

/** One dashboard as a standalone SVG document. Pure: the same dashboard gives the same bytes. */
export function renderLayoutSvg(dashboard: unknown, options: LayoutOptions = {}): string {
  const part = layoutPart(readPreviewDashboard(dashboard), options);
  return svgDocument(part.height, part.body);
}

export function svgDocument(height: number, body: string): string {
  return `<svg ${SVG_OPEN_ATTRIBUTES} width="${PICTURE_WIDTH}" height="${height}" viewBox="0 0 ${PICTURE_WIDTH} ${height}">\n${body}</svg>\n`;
}

export function layoutPart(dashboard: PreviewDashboard, options: LayoutOptions): LayoutPart {
  const placed = placeTiles(dashboard);
  const captionHeight = options.caption === undefined ? 0 : CAPTION_HEIGHT;
  const top = (options.y ?? 0) + captionHeight;
  const scale = (PICTURE_WIDTH - 4 * PAD) / Math.max(MIN_DASHBOARD_WIDTH, ...placed.map((t) => t.x + t.width));
  const tilesHeight = Math.ceil(scale * Math.max(4 * GRID, ...placed.map((t) => t.y + t.height)));
  const height = captionHeight + HEADER_HEIGHT + tilesHeight + 2 * PAD;
  const origin = { x: 2 * PAD, y: top + HEADER_HEIGHT + PAD, scale };
  const drawn = placed.map((t) => tileLines(t, origin, options.marks?.get(t.index)));
  const lines = [
    `<g class="layout">`,
    options.caption === undefined ? '' : `<text class="caption" x="${PAD}" y="${top - 8}" font-size="${CAPTION_FONT}" font-weight="bold">${escapeXml(options.caption)}</text>`,
    `<rect class="canvas" x="${PAD}" y="${top}" width="${PICTURE_WIDTH - 2 * PAD}" height="${height - captionHeight}" fill="#f6f8fa" stroke="#d0d7de"/>`,
    headerLines(dashboard, top, options.headerChanged === true),
    ...drawn.map((t) => t.tile),
    ...drawn.map((t) => t.badge),
    `</g>`,
  ];
  return { height, body: `${lines.filter((l) => l !== '').join('\n')}\n` };
}

function headerLines(dashboard: PreviewDashboard, y: number, changed: boolean): string {
  const x = 2 * PAD;
  const width = PICTURE_WIDTH - 4 * PAD;
  const meta = dashboard.dashboardMetadata;
  const tags = (meta.tags ?? []).length > 0 ? `tags: ${(meta.tags ?? []).join(' · ')}` : 'no tags';
  const filters = filterTexts(dashboard);
  const outline = changed ? `<rect class="header-changed" x="${PAD + 2}" y="${y + 2}" width="${PICTURE_WIDTH - 2 * PAD - 4}" height="${HEADER_HEIGHT - 4}" fill="none" stroke="${MARK_COLOURS.changed.stroke}" stroke-width="3"/>` : '';
  return [
    `<g class="header">${outline}`,
    `<text class="dashboard-name" x="${x}" y="${y + 21}" font-size="${NAME_FONT}" font-weight="bold">${escapeXml(clip(meta.name, charsFor(width, NAME_FONT)))}</text>`,
    `<text class="tags" x="${x}" y="${y + 39}" fill="#57606a">${escapeXml(clip(tags, charsFor(width, TEXT_FONT)))}</text>`,
    `<text class="filters" x="${x}" y="${y + 55}" fill="#57606a">${escapeXml(clip(filters.length > 0 ? filters.join(' · ') : 'no filters', charsFor(width, TEXT_FONT)))}</text>`,
    `</g>`,
  ].join('\n');
}

/**
 * A tile at its scaled place: a box in its mark's colour, its title, a sketch of what it shows (tile-glyphs.ts),
 * when tall enough its type at the bottom, and a badge naming the mark (bottom right, or beside the title in a short
 * tile). Badges come back apart, to be drawn above every tile, so a neighbour never hides one. Text that does not fit
 * a small tile is left out rather than drawn over its neighbours.
 */
function tileLines(placed: PlacedTile, origin: { x: number; y: number; scale: number }, mark: TileMark | undefined): { tile: string; badge: string } {
  const { tile, index } = placed;
  const [x, y] = [origin.x + placed.x * origin.scale, origin.y + placed.y * origin.scale];
  const [width, height] = [placed.width * origin.scale - 2, placed.height * origin.scale - 2];
  const colour = mark ? MARK_COLOURS[mark] : { stroke: '#8c959f', fill: '#ffffff' };
  const kind = glyphKind(tile);
  const tall = height >= NAME_LINE + FOOT_LINE + 12;
  const badgeWidth = mark ? MARK_LABELS[mark].length * SMALL_FONT * 0.62 + 8 : 0;
  const out = [
    `<g class="tile" data-tile="${index}" data-type="${escapeXml(tile.tileType)}" data-glyph="${kind}"${mark ? ` data-mark="${mark}"` : ''}>`,
    `<rect x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" rx="3" fill="${kind === 'header' && !mark ? '#eaeef2' : colour.fill}" stroke="${colour.stroke}" stroke-width="${mark ? 2.5 : 1}"${mark === 'removed' ? ' stroke-dasharray="6 4"' : ''}/>`,
  ];
  const title = tileTitle(tile).trim();
  const nameRoom = width - 10 - (tall || !mark ? 0 : badgeWidth + 4);
  if (height >= 13 && title !== '' && nameRoom >= TEXT_FONT) {
    out.push(`<text class="tile-name" x="${n(x + 5)}" y="${n(y + Math.min(14, height / 2 + 4.5))}" font-weight="bold">${escapeXml(clip(title, charsFor(nameRoom, TEXT_FONT)))}</text>`);
  }
  if (tall) {
    out.push(glyphSvg(kind, { x: x + 5, y: y + NAME_LINE + 2, w: width - 10, h: height - NAME_LINE - FOOT_LINE - 6 }, tile));
    const typeRoom = width - 10 - (mark ? badgeWidth + 4 : 0);
    if (typeRoom >= 4 * SMALL_FONT) out.push(`<text class="tile-type" x="${n(x + 5)}" y="${n(y + height - 5)}" font-size="${SMALL_FONT}" fill="#57606a">${escapeXml(clip(typeLabel(tile.tileType), charsFor(typeRoom, SMALL_FONT)))}</text>`);
  }
  else if (kind === 'header') out.push(glyphSvg(kind, { x: x + 1, y, w: width - 2, h: height - 1 }, tile));
  out.push('</g>');
  const badgeTop = tall ? y + height - BADGE_HEIGHT - 3 : y + Math.max(0, (height - BADGE_HEIGHT) / 2);
  return { tile: out.filter((l) => l !== '').join('\n'), badge: mark ? badgeLines(index, MARK_LABELS[mark], colour.stroke, x + width - badgeWidth - 3, badgeTop, badgeWidth) : '' };
}

/** A filled label, white on the mark's colour, naming the tile it belongs to. */
function badgeLines(index: number, label: string, colour: string, x: number, y: number, width: number): string {
  return `<g class="badge" data-tile="${index}"><rect x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${BADGE_HEIGHT}" rx="3" fill="${colour}"/><text x="${n(x + 4)}" y="${n(y + 11.5)}" font-size="${SMALL_FONT}" font-weight="bold" fill="#ffffff">${escapeXml(label)}</text></g>`;
}

function typeLabel(tileType: string): string {
  return tileType.toLowerCase().replace(/_/g, ' ');
}
