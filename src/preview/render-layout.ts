import { filterTexts, GRID, placeTiles, readPreviewDashboard, type PlacedTile, type PreviewDashboard } from './preview-model.js';
import { CHAR_WIDTH, clip, escapeXml, markdownExcerpt, wrap } from './svg-text.js';

/** How a tile changed in a before/after picture; unmarked tiles are drawn plainly. */
export type TileMark = 'added' | 'removed' | 'moved' | 'edited';

export const MARK_COLOURS: Readonly<Record<TileMark, { stroke: string; fill: string }>> = {
  added: { stroke: '#1a7f37', fill: '#dafbe1' },
  removed: { stroke: '#cf222e', fill: '#ffebe9' },
  moved: { stroke: '#bf8700', fill: '#fff8c5' },
  edited: { stroke: '#bf8700', fill: '#fff8c5' },
};

export interface LayoutOptions {
  /** Marks by tile index. */
  marks?: ReadonlyMap<number, TileMark>;
  /** The dashboard's name, tags or filters changed: the header is outlined amber. */
  headerChanged?: boolean;
  /** Offset of the whole layout, for composing several into one picture. */
  x?: number;
  y?: number;
  /** A caption above the header ("before", "after"). */
  caption?: string;
}

/** SVG elements for one dashboard layout, with the size they take; composed by renderLayoutSvg and before/after. */
export interface LayoutPart {
  width: number;
  height: number;
  body: string;
}

export const HEADER_HEIGHT = 2 * GRID;
const MARGIN = 8;
const CAPTION_HEIGHT = 24;
/** A narrow dashboard still gets a readable canvas: the service's default width of 32 grid columns. */
const MIN_WIDTH = 32 * GRID;

export const SVG_OPEN_ATTRIBUTES =
  'xmlns="http://www.w3.org/2000/svg" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12"';

/** One dashboard as a standalone SVG document. Pure: the same dashboard gives the same bytes. */
export function renderLayoutSvg(dashboard: unknown, options: LayoutOptions = {}): string {
  const part = layoutPart(readPreviewDashboard(dashboard), options);
  return svgDocument(part.width, part.height, part.body);
}

export function svgDocument(width: number, height: number, body: string): string {
  return `<svg ${SVG_OPEN_ATTRIBUTES} width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">\n${body}</svg>\n`;
}

export function layoutPart(dashboard: PreviewDashboard, options: LayoutOptions): LayoutPart {
  const placed = placeTiles(dashboard);
  const ox = options.x ?? 0;
  const captionHeight = options.caption === undefined ? 0 : CAPTION_HEIGHT;
  const oy = (options.y ?? 0) + captionHeight;
  const width = 2 * MARGIN + Math.max(MIN_WIDTH, ...placed.map((t) => t.x + t.width));
  const height = captionHeight + HEADER_HEIGHT + 2 * MARGIN + Math.max(4 * GRID, ...placed.map((t) => t.y + t.height));
  const lines = [
    `<g class="layout">`,
    options.caption === undefined ? '' : `<text class="caption" x="${ox}" y="${oy - 8}" font-size="16" font-weight="bold">${escapeXml(options.caption)}</text>`,
    `<rect class="canvas" x="${ox}" y="${oy}" width="${width}" height="${height - captionHeight}" fill="#f6f8fa" stroke="#d0d7de"/>`,
    headerLines(dashboard, ox, oy, width, options.headerChanged === true),
    ...placed.map((t) => tileLines(t, ox + MARGIN, oy + HEADER_HEIGHT + MARGIN, options.marks?.get(t.index))),
    `</g>`,
  ];
  return { width, height, body: `${lines.filter((l) => l !== '').join('\n')}\n` };
}

function headerLines(dashboard: PreviewDashboard, x: number, y: number, width: number, changed: boolean): string {
  const chars = Math.floor((width - 2 * MARGIN) / CHAR_WIDTH);
  const meta = dashboard.dashboardMetadata;
  const tags = (meta.tags ?? []).length > 0 ? `tags: ${(meta.tags ?? []).join(' · ')}` : 'no tags';
  const filters = filterTexts(dashboard);
  const outline = changed ? `<rect class="header-changed" x="${x + 2}" y="${y + 2}" width="${width - 4}" height="${HEADER_HEIGHT - 4}" fill="none" stroke="${MARK_COLOURS.edited.stroke}" stroke-width="3"/>` : '';
  return [
    `<g class="header">${outline}`,
    `<text class="dashboard-name" x="${x + MARGIN}" y="${y + 24}" font-size="18" font-weight="bold">${escapeXml(clip(meta.name, Math.floor(chars * 0.66)))}</text>`,
    `<text class="tags" x="${x + MARGIN}" y="${y + 46}" fill="#57606a">${escapeXml(clip(tags, chars))}</text>`,
    `<text class="filters" x="${x + MARGIN}" y="${y + 66}" fill="#57606a">${escapeXml(clip(filters.length > 0 ? filters.join(' · ') : 'no filters', chars))}</text>`,
    `</g>`,
  ].join('\n');
}

const LINE_HEIGHT = 14;

function tileLines(placed: PlacedTile, ox: number, oy: number, mark: TileMark | undefined): string {
  const { tile, index, width, height } = placed;
  const x = ox + placed.x;
  const y = oy + placed.y;
  const chars = Math.max(1, Math.floor((width - 12) / CHAR_WIDTH));
  const colour = mark ? MARK_COLOURS[mark] : { stroke: '#8c959f', fill: '#ffffff' };
  const dash = mark === 'removed' ? ' stroke-dasharray="6 4"' : '';
  const name = tile.name || tile.customName || '';
  const out = [
    `<g class="tile" data-tile="${index}" data-type="${escapeXml(tile.tileType)}"${mark ? ` data-mark="${mark}"` : ''}>`,
    `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="3" fill="${colour.fill}" stroke="${colour.stroke}" stroke-width="${mark ? 3 : 1}"${dash}/>`,
    `<text class="tile-name" x="${x + 6}" y="${y + 16}" font-weight="bold">${escapeXml(clip(name, chars))}</text>`,
    `<text class="tile-type" x="${x + 6}" y="${y + height - 6}" font-size="10" fill="#57606a">${escapeXml(clip(typeLabel(tile.tileType, mark), chars + 2))}</text>`,
  ];
  if (tile.tileType === 'MARKDOWN' && tile.markdown) {
    const room = Math.floor((height - 40) / LINE_HEIGHT);
    wrap(markdownExcerpt(tile.markdown), chars, room).forEach((line, i) => {
      out.push(`<text class="excerpt" x="${x + 6}" y="${y + 32 + i * LINE_HEIGHT}" fill="#24292f">${escapeXml(line)}</text>`);
    });
  }
  out.push('</g>');
  return out.join('\n');
}

function typeLabel(tileType: string, mark: TileMark | undefined): string {
  const type = tileType.toLowerCase().replace(/_/g, ' ');
  return mark ? `${type} · ${mark}` : type;
}
