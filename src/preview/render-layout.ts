import { isDocumentValue } from './document-preview-model.js';
import { framePart, PAD, PICTURE_WIDTH, svgDocument, tileLines, type DrawnBox, type HeaderText, type LayoutOptions, type LayoutPart, type TileFace, type TileMark } from './layout-frame.js';
import { filterTexts, GRID, placeTiles, readPreviewDashboard, tileTitle, type PlacedTile, type PreviewDashboard } from './preview-model.js';
import { renderDocumentSvg } from './render-document.js';
import { glyphKind, glyphSvg } from './tile-glyphs.js';

export { HEADER_HEIGHT, MARK_COLOURS, MARK_LABELS, PICTURE_WIDTH, SMALL_FONT, SVG_OPEN_ATTRIBUTES, svgDocument, type LayoutOptions, type LayoutPart, type TileMark } from './layout-frame.js';

/** A narrow dashboard is drawn at the scale of the service's default width of 32 grid columns, not blown up. */
const MIN_DASHBOARD_WIDTH = 32 * GRID;

/**
 * One dashboard as a standalone SVG document. Pure: the same dashboard gives the same bytes. A value with a
 * `document:` member is a platform dashboard or notebook, drawn by render-document.ts (its marks are by tile key,
 * so classic marks by index are not passed on).
 */
export function renderLayoutSvg(dashboard: unknown, options: LayoutOptions = {}): string {
  if (isDocumentValue(dashboard)) {
    const { marks: _byIndex, ...rest } = options;
    return renderDocumentSvg(dashboard, rest);
  }
  const part = layoutPart(readPreviewDashboard(dashboard), options);
  return svgDocument(part.height, part.body);
}

export function layoutPart(dashboard: PreviewDashboard, options: LayoutOptions): LayoutPart {
  const placed = placeTiles(dashboard);
  const scale = (PICTURE_WIDTH - 4 * PAD) / Math.max(MIN_DASHBOARD_WIDTH, ...placed.map((t) => t.x + t.width));
  const tilesHeight = Math.ceil(scale * Math.max(4 * GRID, ...placed.map((t) => t.y + t.height)));
  return framePart(options, classicHeader(dashboard), tilesHeight, (top) => placed.map((t) => classicTileLines(t, { x: 2 * PAD, y: top, scale }, options.marks?.get(t.index))));
}

function classicHeader(dashboard: PreviewDashboard): HeaderText {
  const meta = dashboard.dashboardMetadata;
  const tags = (meta.tags ?? []).length > 0 ? `tags: ${(meta.tags ?? []).join(' · ')}` : 'no tags';
  const filters = filterTexts(dashboard);
  return { name: meta.name, lines: [{ cls: 'tags', text: tags }, { cls: 'filters', text: filters.length > 0 ? filters.join(' · ') : 'no filters' }] };
}

/** A classic tile at its scaled place (tileLines draws it). */
function classicTileLines(placed: PlacedTile, origin: { x: number; y: number; scale: number }, mark: TileMark | undefined): DrawnBox {
  const { tile, index } = placed;
  const kind = glyphKind(tile);
  const face: TileFace = { id: String(index), type: tile.tileType, label: typeLabel(tile.tileType), title: tileTitle(tile).trim(), glyph: kind, sketch: (box) => glyphSvg(kind, box, tile) };
  const box = { x: origin.x + placed.x * origin.scale, y: origin.y + placed.y * origin.scale, w: placed.width * origin.scale - 2, h: placed.height * origin.scale - 2 };
  return tileLines(face, box, mark);
}

function typeLabel(tileType: string): string {
  return tileType.toLowerCase().replace(/_/g, ' ');
}
