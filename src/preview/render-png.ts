import { Resvg } from '@resvg/resvg-js';

/**
 * A preview SVG as PNG, rendered by resvg (no browser). Pictures wider than MAX_WIDTH are scaled down: a 4,800 px
 * wide dashboard beside its diff is still readable at that width and stays a reasonable upload.
 */
const MAX_WIDTH = 3200;

export function svgToPng(svg: string): Buffer {
  const resvg = new Resvg(svg, {
    background: '#ffffff',
    font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    ...(svgWidth(svg) > MAX_WIDTH ? { fitTo: { mode: 'width' as const, value: MAX_WIDTH } } : {}),
  });
  return resvg.render().asPng();
}

function svgWidth(svg: string): number {
  return Number(/^<svg [^>]*width="(\d+)"/.exec(svg)?.[1] ?? 0);
}
