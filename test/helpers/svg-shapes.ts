/** Reads drawn shapes back out of preview SVG, so tests check structure (what is drawn where), not pixels. */

export interface DrawnTile {
  index: number;
  type: string;
  mark?: string;
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

export function drawnTiles(svg: string): DrawnTile[] {
  const tiles: DrawnTile[] = [];
  const groups = svg.matchAll(/<g class="tile" data-tile="(\d+)" data-type="([^"]*)"(?: data-mark="(\w+)")?>([\s\S]*?)<\/g>/g);
  for (const [, index, type, mark, inner = ''] of groups) {
    const rect = /<rect x="(-?[\d.]+)" y="(-?[\d.]+)" width="([\d.]+)" height="([\d.]+)"/.exec(inner);
    if (!rect) throw new Error(`tile ${index} has no rectangle`);
    const texts = [...inner.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1] ?? '');
    tiles.push({ index: Number(index), type: type ?? '', ...(mark ? { mark } : {}), x: Number(rect[1]), y: Number(rect[2]), width: Number(rect[3]), height: Number(rect[4]), texts });
  }
  return tiles;
}
