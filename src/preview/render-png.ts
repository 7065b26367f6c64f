import { Resvg } from '@resvg/resvg-js';

/**
 * A preview SVG as PNG, rendered by resvg (no browser), at twice the SVG's size: shown at the SVG's width (a
 * pull-request comment scales it to fit), its text stays sharp on dense screens and its font sizes are the SVG's.
 */
export const PNG_ZOOM = 2;

export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    fitTo: { mode: 'zoom', value: PNG_ZOOM },
  });
  return resvg.render().asPng();
}
