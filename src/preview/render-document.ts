import { documentGlyphSvg, visualizationGlyph, type DocumentGlyph } from './document-glyphs.js';
import { firstLine, readPreviewDocument, type PreviewDocument, type PreviewDocumentTile, type PreviewNotebook, type PreviewPlatformDashboard, type PreviewSection } from './document-preview-model.js';
import { framePart, PAD, PICTURE_WIDTH, svgDocument, tileLines, type DrawnBox, type HeaderText, type LayoutOptions, type LayoutPart, type TileFace, type TileMark } from './layout-frame.js';
import { markdownExcerpt } from './svg-text.js';

/** As LayoutOptions, with marks by box id: a platform tile's key, a section's place in its notebook. */
export interface DocumentLayoutOptions extends Omit<LayoutOptions, 'marks'> {
  marks?: ReadonlyMap<string, TileMark>;
}

const CONTENT_WIDTH = PICTURE_WIDTH - 4 * PAD;
/**
 * One grid row, in picture pixels: three quarters of a column of the default 24-column grid, about the proportion
 * the Dashboards app draws, so a tile 4 wide and 3 high reads as the small box it is there. Rows do not shrink
 * with more columns (the app's rows have a fixed height).
 */
export const ROW_HEIGHT = 24;
/** A dashboard with fewer rows is drawn this high, so an empty one still shows a canvas. */
const MIN_ROWS = 4;
/** Rows a tile without a layout takes, stacked full width under the laid-out ones so it is still seen. */
const UNPLACED_ROWS = 2;
const SECTION_GAP = 6;

/** A platform dashboard or notebook (a value with a `document:` member) as a standalone SVG document. Pure. */
export function renderDocumentSvg(value: Record<string, unknown>, options: DocumentLayoutOptions = {}): string {
  const part = documentPart(readPreviewDocument(value), options);
  return svgDocument(part.height, part.body);
}

export function documentPart(doc: PreviewDocument, options: DocumentLayoutOptions): LayoutPart {
  return doc.kind === 'dashboard' ? dashboardPart(doc, options) : notebookPart(doc, options);
}

function documentHeader(doc: PreviewDocument, kind: string, count: string, details: readonly string[]): HeaderText {
  const visibility = doc.isPrivate === true ? 'private' : 'public';
  const described = [...(doc.description ? [doc.description] : []), ...details];
  return { name: doc.name, lines: [{ cls: 'kind', text: `${kind} · ${count} · ${visibility}` }, { cls: 'details', text: described.length > 0 ? described.join(' · ') : 'no description' }] };
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** A grid rectangle in cells: columns across, rows down. */
interface Cells {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Each tile at its layout: `x`/`w` in the grid's columns (24 unless the dashboard's settings say otherwise; more
 * when a layout reaches past them, so nothing is cut off), `y`/`h` in rows of ROW_HEIGHT. A tile without a layout
 * is drawn under the others, full width.
 */
export function placeDocumentTiles(doc: PreviewPlatformDashboard): { key: string; tile: PreviewDocumentTile; cells: Cells }[] {
  const laidOut = doc.tiles.flatMap((t) => (t.layout ? [{ ...t, cells: { x: t.layout.x, y: t.layout.y, w: Math.max(1, t.layout.w), h: Math.max(1, t.layout.h) } }] : []));
  const columns = Math.max(doc.columns, ...laidOut.map((t) => t.cells.x + t.cells.w));
  let bottom = Math.max(0, ...laidOut.map((t) => t.cells.y + t.cells.h));
  // By key, not a search per tile: a committed file of 8,000 tiles spent seconds here.
  const byKey = new Map(laidOut.map((p) => [p.key, p]));
  return doc.tiles.map((t) => {
    const placed = byKey.get(t.key);
    if (placed) return placed;
    const cells = { x: 0, y: bottom, w: columns, h: UNPLACED_ROWS };
    bottom += UNPLACED_ROWS;
    return { ...t, cells };
  });
}

function dashboardPart(doc: PreviewPlatformDashboard, options: DocumentLayoutOptions): LayoutPart {
  const placed = placeDocumentTiles(doc);
  const columns = Math.max(doc.columns, ...placed.map((t) => t.cells.x + t.cells.w));
  const column = CONTENT_WIDTH / columns;
  const rows = Math.max(MIN_ROWS, ...placed.map((t) => t.cells.y + t.cells.h));
  const variables = doc.variables.length > 0 ? [`variables: ${doc.variables.map((v) => `$${v}`).join(', ')}`] : [];
  const header = documentHeader(doc, 'platform dashboard', plural(doc.tiles.length, 'tile'), variables);
  return framePart(options, header, rows * ROW_HEIGHT, (top) =>
    placed.map(({ key, tile, cells }) => tileLines(tileFace(key, tile), { x: 2 * PAD + cells.x * column, y: top + cells.y * ROW_HEIGHT, w: Math.max(1, cells.w * column - 2), h: cells.h * ROW_HEIGHT - 2 }, options.marks?.get(key))),
  );
}

/**
 * A platform tile's face. Data and code tiles show their title and their visualization's sketch (a code tile that
 * names none, a code sketch); markdown and annotation tiles their first heading (else first line) as the title and
 * the rest of their text; an SLO tile a number.
 */
export function tileFace(key: string, tile: PreviewDocumentTile): TileFace {
  const base = { id: key, type: tile.type };
  if (tile.type === 'markdown' || tile.type === 'annotation') {
    const { title, rest } = markdownTitle(tile.content ?? '');
    return { ...base, label: tile.type, title, glyph: 'markdown', sketch: (box) => documentGlyphSvg('markdown', box, rest) };
  }
  const title = (tile.title ?? '').trim();
  if (tile.type === 'slo') return face(base, 'slo', title, 'number');
  const named = tile.visualization ?? undefined;
  const glyph: DocumentGlyph = named !== undefined ? visualizationGlyph(named) : tile.type === 'code' ? 'code' : 'neutral';
  return face(base, named === undefined ? tile.type : `${tile.type} · ${named}`, title, glyph);
}

function face(base: { id: string; type: string }, label: string, title: string, glyph: DocumentGlyph): TileFace {
  return { ...base, label, title, glyph, sketch: (box) => documentGlyphSvg(glyph, box) };
}

const HEADING = /^\s{0,3}#{1,6}\s/;

/** A markdown text's first heading (else its first line) as plain text, and the text without that line. */
export function markdownTitle(markdown: string): { title: string; rest: string } {
  const lines = markdown.split('\n');
  const heading = lines.findIndex((line) => HEADING.test(line));
  const at = heading >= 0 ? heading : lines.findIndex((line) => line.trim() !== '');
  if (at < 0) return { title: '', rest: '' };
  return { title: markdownExcerpt(lines[at] ?? ''), rest: lines.filter((_, i) => i !== at).join('\n') };
}

/** Box heights of sections, in picture pixels: one line; title and type line; and with a sketch between. */
const LINE_HEIGHT = 26;
const LABELLED_HEIGHT = 48;
const SKETCH_HEIGHT = 96;

/**
 * Sections top to bottom, full width, in the notebook's order: a markdown section shows its first line, a DQL
 * section its title (else its query's first line), its query's first line under it and the sketch of
 * `state.visualization` when it names one, a function section a code sketch.
 */
function notebookPart(doc: PreviewNotebook, options: DocumentLayoutOptions): LayoutPart {
  const faces = doc.sections.map((section, index) => sectionFace(String(index), section));
  const heights = faces.map((f) => f.height);
  const contentHeight = Math.max(MIN_ROWS * ROW_HEIGHT, heights.reduce((sum, h) => sum + h + SECTION_GAP, 0));
  const timeframe = doc.timeframe?.from || doc.timeframe?.to ? [`timeframe: ${doc.timeframe.from ?? ''} – ${doc.timeframe.to ?? ''}`] : [];
  const header = documentHeader(doc, 'notebook', plural(doc.sections.length, 'section'), timeframe);
  return framePart(options, header, contentHeight, (top) => {
    let y = top;
    return faces.map(({ face: f, height }): DrawnBox => {
      const drawn = tileLines(f, { x: 2 * PAD, y, w: CONTENT_WIDTH - 2, h: height }, options.marks?.get(f.id));
      y += height + SECTION_GAP;
      return drawn;
    });
  });
}

export function sectionFace(id: string, section: PreviewSection): { face: TileFace; height: number } {
  const base = { id, type: section.type };
  const title = (section.title ?? '').trim();
  if (section.type === 'markdown') {
    return { face: { ...base, label: 'markdown', title: markdownExcerpt(firstLine(section.markdown)), glyph: 'markdown', sketch: () => '' }, height: LINE_HEIGHT };
  }
  const input = firstLine(section.state?.input?.value);
  if (section.type === 'dql') {
    const named = section.state?.visualization ?? undefined;
    const label = title !== '' ? `dql: ${input}` : named === undefined ? 'dql' : `dql · ${named}`;
    const heading = title !== '' ? title : input;
    if (named === undefined) return { face: { ...base, label, title: heading, glyph: 'none', sketch: () => '' }, height: LABELLED_HEIGHT };
    return { face: face(base, label, heading, visualizationGlyph(named)), height: SKETCH_HEIGHT };
  }
  if (section.type === 'function') return { face: face(base, 'function', title !== '' ? title : input, 'code'), height: SKETCH_HEIGHT };
  return { face: face(base, section.type, title, 'neutral'), height: SKETCH_HEIGHT };
}
