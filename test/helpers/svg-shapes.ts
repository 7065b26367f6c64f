import { Resvg } from '@resvg/resvg-js';

/** Reads drawn shapes back out of preview SVG, so tests check structure (what is drawn where), not pixels. */

export interface DrawnTile {
  index: number;
  type: string;
  /** The sketch kind (tile-glyphs.ts) and the element names drawing it (`polyline`, `rect`, `text`, …). */
  glyph: string;
  glyphShapes: string[];
  mark?: string;
  /** The label of the badge drawn above the tile for its mark. */
  badge?: string;
  x: number;
  y: number;
  width: number;
  height: number;
  texts: string[];
}

export function svgSize(svg: string): { width: number; height: number } {
  const match = /^<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg);
  if (!match) throw new Error('not a preview SVG');
  return { width: Number(match[1]), height: Number(match[2]) };
}

/** The tiles of every layout in the picture, layout after layout (a before/after picture has two). */
export function drawnTiles(svg: string): DrawnTile[] {
  return svg.split('<g class="layout">').flatMap(layoutTiles);
}

function layoutTiles(svg: string): DrawnTile[] {
  const tiles: DrawnTile[] = [];
  const badges = new Map([...svg.matchAll(/<g class="badge" data-tile="(\d+)">[\s\S]*?<text[^>]*>([^<]*)<\/text><\/g>/g)].map((m) => [Number(m[1]), m[2] ?? '']));
  const groups = svg.matchAll(/<g class="tile" data-tile="(\d+)" data-type="([^"]*)" data-glyph="(\w+)"(?: data-mark="([\w-]+)")?>([\s\S]*?)<\/g>/g);
  for (const [, index, type, glyph, mark, inner = ''] of groups) {
    const rect = /<rect x="(-?[\d.]+)" y="(-?[\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(inner);
    if (!rect) throw new Error(`tile ${index} has no rectangle`);
    const texts = [...inner.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
    const glyphShapes = [...inner.matchAll(/<(\w+) class="glyph[ "]/g)].map((m) => m[1] ?? '');
    const badge = badges.get(Number(index));
    tiles.push({ index: Number(index), type: type ?? '', glyph: glyph ?? '', glyphShapes, ...(mark ? { mark } : {}), ...(badge === undefined ? {} : { badge }), x: Number(rect[1]), y: Number(rect[2]), width: Number(rect[3]), height: Number(rect[4]), texts });
  }
  return tiles;
}

/** Every font size the SVG uses: the root's default and each explicit `font-size`, in SVG pixels. */
export function fontSizes(svg: string): number[] {
  return [...svg.matchAll(/font-size="([\d.]+)"/g)].map((m) => Number(m[1]));
}

/** A PNG's width and height, read from its IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.subarray(1, 4).toString() !== 'PNG') throw new Error('not a PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/**
 * The width resvg reads from `svg`; resvg throws on SVG that is not well-formed. Read without system fonts: with them
 * resvg also shapes every text into paths, which was nearly all of its time (about 4 s over the corpus pictures) and
 * checks nothing the parse does not. PNG rendering with the fonts (src/preview/render-png.ts) is tested by the preview
 * and plan --html tests.
 */
export function parsedSvgWidth(svg: string): number {
  return new Resvg(svg, { font: { loadSystemFonts: false } }).width;
}
