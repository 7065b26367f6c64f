/** Reads a document picture's boxes (platform tiles by key, notebook sections by place) back out of its SVG. */
export interface DocumentBox {
  id: string;
  type: string;
  glyph: string;
  mark?: string;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The bold title line, as drawn (escaped), or undefined when none was drawn. */
  title?: string;
  /** Every text of the box, as drawn (escaped). */
  texts: string[];
  /** The element names of the sketch. */
  sketch: string[];
}

/** Each layout of the picture (a before/after picture has two), its boxes in drawing order. */
export function documentLayouts(svg: string): DocumentBox[][] {
  return svg.split('<g class="layout">').slice(1).map((layout) =>
    [...layout.matchAll(/<g class="tile" data-tile="([^"]*)" data-type="([^"]*)" data-glyph="([\w-]+)"(?: data-mark="([\w-]+)")?>\n<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"([\s\S]*?)<\/g>/g)].map((m) => {
      const inner = m[9] ?? '';
      const title = /<text class="tile-name"[^>]*>([^<]*)<\/text>/.exec(inner)?.[1];
      return {
        id: m[1] ?? '',
        type: m[2] ?? '',
        glyph: m[3] ?? '',
        ...(m[4] ? { mark: m[4] } : {}),
        x: Number(m[5]),
        y: Number(m[6]),
        width: Number(m[7]),
        height: Number(m[8]),
        ...(title === undefined ? {} : { title }),
        texts: [...inner.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((t) => t[1] ?? ''),
        sketch: [...inner.matchAll(/<(\w+) class="glyph[ "]/g)].map((t) => t[1] ?? ''),
      };
    }),
  );
}

/** The one layout of a single picture. */
export function documentBoxes(svg: string): DocumentBox[] {
  return documentLayouts(svg)[0] ?? [];
}
