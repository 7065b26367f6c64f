import { charsFor, clip, escapeXml } from './svg-text.js';
import type { Box } from './tile-glyphs.js';
import type { TileMark } from './tile-changes.js';

export type { TileMark };

/** What every layout picture shares, whatever it draws (a classic dashboard, a platform dashboard, a notebook). */

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

export const PAD = 8;
/**
 * The tallest content a picture draws (about 660 rows of a platform dashboard): a file may place a tile at any row,
 * and a committed one at `y: 100000000` had the PNG renderer take 24 GB. Past it the picture is cut, and says so.
 */
export const MAX_CONTENT_HEIGHT = 16_000;
/**
 * What the boxes of one picture may cover, as a multiple of its content's area (tiles of a real layout cover it about
 * once): 8,000 full-height tiles stacked in one place held `preview --format png` 257 s, each filled in turn. Past
 * it, the remaining boxes are left out, and the picture says how many.
 */
export const MAX_BOX_COVER = 4;
const NOTE_LINE = 20;
const CAPTION_HEIGHT = 26;
export const HEADER_HEIGHT = 62;
/** Room under a tile's name for its sketch, and above its type label when the tile is tall enough for one. */
const NAME_LINE = 18;
/** The bottom line of a tall tile: its type, and its badge when marked. */
const FOOT_LINE = 18;
const BADGE_HEIGHT = 15;

export const SVG_OPEN_ATTRIBUTES = `xmlns="http://www.w3.org/2000/svg" font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="${TEXT_FONT}"`;

const n = (value: number): string => String(Math.round(value * 10) / 10);

export function svgDocument(height: number, body: string): string {
  return `<svg ${SVG_OPEN_ATTRIBUTES} width="${PICTURE_WIDTH}" height="${height}" viewBox="0 0 ${PICTURE_WIDTH} ${height}">\n${body}</svg>\n`;
}

/** The three lines of a header: the name (bold), then two grey lines each with its class. */
export interface HeaderText {
  name: string;
  lines: readonly [{ cls: string; text: string }, { cls: string; text: string }];
}

/** A tile or section drawn as a box; `tile` and `badge` apart, so badges go above every box. */
export interface DrawnBox {
  tile: string;
  badge: string;
  /** Where the box starts (picture pixels): one past the cut is left out. */
  top: number;
  /** What it covers (picture pixels), for MAX_BOX_COVER. */
  area: number;
}

/**
 * The frame every layout shares: the caption, the canvas, the header, then the boxes `drawBoxes` draws from the
 * top of the content area (which starts PAD under the header and is `contentHeight` tall), their badges last.
 */
export function framePart(options: Omit<LayoutOptions, 'marks'>, header: HeaderText, contentHeight: number, drawBoxes: (contentTop: number) => DrawnBox[]): LayoutPart {
  const captionHeight = options.caption === undefined ? 0 : CAPTION_HEIGHT;
  const top = (options.y ?? 0) + captionHeight;
  const cut = !(contentHeight <= MAX_CONTENT_HEIGHT);
  const shownContent = cut ? MAX_CONTENT_HEIGHT : contentHeight;
  const contentTop = top + HEADER_HEIGHT + PAD;
  // Left out past the cut, not only clipped: resvg aborts the process (a panic, not an error) on text that far out.
  const placed = drawBoxes(contentTop).filter((box) => Math.abs(box.top - contentTop) < MAX_CONTENT_HEIGHT);
  const drawn = withinCover(placed, MAX_BOX_COVER * PICTURE_WIDTH * Math.max(shownContent, HEADER_HEIGHT));
  const notes = [
    cut ? `cut at ${MAX_CONTENT_HEIGHT} px: the layout is ${Number.isFinite(contentHeight) ? Math.round(contentHeight) : contentHeight} px tall` : '',
    drawn.length < placed.length ? `${placed.length - drawn.length} of ${placed.length} boxes not drawn: together they would cover the picture more than ${MAX_BOX_COVER} times` : '',
  ].filter((note) => note !== '');
  const height = captionHeight + HEADER_HEIGHT + shownContent + (notes.length > 0 ? NOTE_LINE : 0) + 2 * PAD;
  const lines = [
    `<g class="layout">`,
    options.caption === undefined ? '' : `<text class="caption" x="${PAD}" y="${top - 8}" font-size="${CAPTION_FONT}" font-weight="bold">${escapeXml(options.caption)}</text>`,
    `<rect class="canvas" x="${PAD}" y="${top}" width="${PICTURE_WIDTH - 2 * PAD}" height="${height - captionHeight}" fill="#f6f8fa" stroke="#d0d7de"/>`,
    headerLines(header, top, options.headerChanged === true),
    // A box that crosses the cut ends at it, so it never covers the note under it.
    cut ? `<clipPath id="cut-${top}"><rect x="0" y="${top}" width="${PICTURE_WIDTH}" height="${HEADER_HEIGHT + PAD + MAX_CONTENT_HEIGHT}"/></clipPath><g clip-path="url(#cut-${top})">` : '',
    ...drawn.map((t) => t.tile),
    ...drawn.map((t) => t.badge),
    cut ? `</g>` : '',
    notes.length > 0 ? `<text class="cut" x="${2 * PAD}" y="${contentTop + shownContent + 14}" fill="#57606a">${escapeXml(notes.join('; '))}</text>` : '',
    `</g>`,
  ];
  return { height, body: `${lines.filter((l) => l !== '').join('\n')}\n` };
}

/** The boxes, in drawing order, up to the first whose area takes their sum past `budget`. */
function withinCover(boxes: readonly DrawnBox[], budget: number): DrawnBox[] {
  let covered = 0;
  const kept: DrawnBox[] = [];
  for (const box of boxes) {
    covered += box.area;
    if (covered > budget) break;
    kept.push(box);
  }
  return kept;
}

function headerLines(header: HeaderText, y: number, changed: boolean): string {
  const x = 2 * PAD;
  const width = PICTURE_WIDTH - 4 * PAD;
  const outline = changed ? `<rect class="header-changed" x="${PAD + 2}" y="${y + 2}" width="${PICTURE_WIDTH - 2 * PAD - 4}" height="${HEADER_HEIGHT - 4}" fill="none" stroke="${MARK_COLOURS.changed.stroke}" stroke-width="3"/>` : '';
  const [second, third] = header.lines;
  return [
    `<g class="header">${outline}`,
    `<text class="dashboard-name" x="${x}" y="${y + 21}" font-size="${NAME_FONT}" font-weight="bold">${escapeXml(clip(header.name, charsFor(width, NAME_FONT)))}</text>`,
    `<text class="${second.cls}" x="${x}" y="${y + 39}" fill="#57606a">${escapeXml(clip(second.text, charsFor(width, TEXT_FONT)))}</text>`,
    `<text class="${third.cls}" x="${x}" y="${y + 55}" fill="#57606a">${escapeXml(clip(third.text, charsFor(width, TEXT_FONT)))}</text>`,
    `</g>`,
  ].join('\n');
}

/** What one box shows, whatever it stands for: a classic tile, a platform dashboard's tile, a notebook's section. */
export interface TileFace {
  /** `data-tile`: a classic tile's index, a platform tile's key, a section's place in its notebook. */
  id: string;
  /** `data-type`. */
  type: string;
  /** The bottom line of a tall box (its type). */
  label: string;
  title: string;
  /** `data-glyph`: the sketch's name; a `header` box is drawn as a section heading. */
  glyph: string;
  /** The sketch inside a box (picture pixels). */
  sketch: (box: Box) => string;
}

/**
 * A box at its place (picture pixels): a box in its mark's colour, its title, a sketch of what it shows
 * (tile-glyphs.ts), when tall enough its type at the bottom, and a badge naming the mark (bottom right, or beside
 * the title in a short box). Badges come back apart, to be drawn above every box, so a neighbour never hides one.
 * Text that does not fit a small box is left out rather than drawn over its neighbours.
 */
export function tileLines(face: TileFace, box: Box, mark: TileMark | undefined): DrawnBox {
  const { x, y, w: width } = box;
  // No box is drawn taller than a picture's content: its bottom line stays near the cut, never rows away.
  const height = Math.min(box.h, MAX_CONTENT_HEIGHT);
  const colour = mark ? MARK_COLOURS[mark] : { stroke: '#8c959f', fill: '#ffffff' };
  const kind = face.glyph;
  const tall = height >= NAME_LINE + FOOT_LINE + 12;
  const badgeWidth = mark ? MARK_LABELS[mark].length * SMALL_FONT * 0.62 + 8 : 0;
  const out = [
    `<g class="tile" data-tile="${escapeXml(face.id)}" data-type="${escapeXml(face.type)}" data-glyph="${kind}"${mark ? ` data-mark="${mark}"` : ''}>`,
    `<rect x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${n(height)}" rx="3" fill="${kind === 'header' && !mark ? '#eaeef2' : colour.fill}" stroke="${colour.stroke}" stroke-width="${mark ? 2.5 : 1}"${mark === 'removed' ? ' stroke-dasharray="6 4"' : ''}/>`,
  ];
  const title = face.title;
  const nameRoom = width - 10 - (tall || !mark ? 0 : badgeWidth + 4);
  if (height >= 13 && title !== '' && nameRoom >= TEXT_FONT) {
    out.push(`<text class="tile-name" x="${n(x + 5)}" y="${n(y + Math.min(14, height / 2 + 4.5))}" font-weight="bold">${escapeXml(clip(title, charsFor(nameRoom, TEXT_FONT)))}</text>`);
  }
  if (tall) {
    out.push(face.sketch({ x: x + 5, y: y + NAME_LINE + 2, w: width - 10, h: height - NAME_LINE - FOOT_LINE - 6 }));
    const typeRoom = width - 10 - (mark ? badgeWidth + 4 : 0);
    if (typeRoom >= 4 * SMALL_FONT) out.push(`<text class="tile-type" x="${n(x + 5)}" y="${n(y + height - 5)}" font-size="${SMALL_FONT}" fill="#57606a">${escapeXml(clip(face.label, charsFor(typeRoom, SMALL_FONT)))}</text>`);
  }
  else if (kind === 'header') out.push(face.sketch({ x: x + 1, y, w: width - 2, h: height - 1 }));
  out.push('</g>');
  const badgeTop = tall ? y + height - BADGE_HEIGHT - 3 : y + Math.max(0, (height - BADGE_HEIGHT) / 2);
  return { tile: out.filter((l) => l !== '').join('\n'), badge: mark ? badgeLines(face.id, MARK_LABELS[mark], colour.stroke, x + width - badgeWidth - 3, badgeTop, badgeWidth) : '', top: y, area: Math.max(0, width) * height };
}

/** A filled label, white on the mark's colour, naming the tile it belongs to. */
function badgeLines(id: string, label: string, colour: string, x: number, y: number, width: number): string {
  return `<g class="badge" data-tile="${escapeXml(id)}"><rect x="${n(x)}" y="${n(y)}" width="${n(width)}" height="${BADGE_HEIGHT}" rx="3" fill="${colour}"/><text x="${n(x + 4)}" y="${n(y + 11.5)}" font-size="${SMALL_FONT}" font-weight="bold" fill="#ffffff">${escapeXml(label)}</text></g>`;
}
