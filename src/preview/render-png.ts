import { Resvg } from '@resvg/resvg-js';
import { PICTURE_WIDTH } from './layout-frame.js';

/**
 * A preview SVG as PNG, rendered by resvg (no browser), at twice the SVG's size: shown at the SVG's width (a
 * pull-request comment scales it to fit), its text stays sharp on dense screens and its font sizes are the SVG's.
 */
export const PNG_ZOOM = 2;

/**
 * The most pixels a PNG is rendered with (64 MB of RGBA in resvg's own memory, which no heap limit bounds): a taller
 * picture (a before-and-after of two long dashboards, each cut at MAX_CONTENT_HEIGHT) is rendered smaller instead.
 */
export const MAX_PNG_PIXELS = 16_000_000;

export function svgToPng(svg: string): Buffer {
  // 1 % short of the budget: resvg rounds each side up to whole pixels.
  const zoom = Math.min(PNG_ZOOM, Math.sqrt((0.99 * MAX_PNG_PIXELS) / (PICTURE_WIDTH * svgHeight(svg))));
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    fitTo: { mode: 'zoom', value: zoom },
  });
  return resvg.render().asPng();
}

/** The height svgDocument gives the picture's root element. */
function svgHeight(svg: string): number {
  const height = Number(/^<svg [^>]*?\bheight="([^"]*)"/.exec(svg)?.[1]);
  if (!(height > 0)) throw new Error('not a preview SVG: its root has no height');
  return height;
}
