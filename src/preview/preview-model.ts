import { z } from 'zod';

/**
 * What a preview reads of a dashboard. Every member is optional and falls back on bad data (`catch`): a preview
 * draws desired files, live dashboards newer than our schema and normalised plan values alike, and must draw what it
 * can rather than refuse a picture.
 */
const count = z.number().finite().catch(0);
const text = z.string().nullish().catch(undefined);

export const PreviewBounds = z.object({ top: count.default(0), left: count.default(0), width: count.default(0), height: count.default(0) });

/** A member holding `{ type }`: how Data Explorer (`visualConfig`) and custom charts (`chartConfig`) pick a chart. */
const Typed = z.object({ type: text }).nullish().catch(undefined);

export const PreviewTile = z.object({
  tileType: z.string().catch('UNKNOWN'),
  name: text,
  customName: text,
  markdown: text,
  bounds: PreviewBounds.nullish().catch(undefined),
  /** DTAQL tiles name their chart here. */
  type: text,
  visualConfig: Typed,
  filterConfig: z.object({ customName: text, chartConfig: Typed }).nullish().catch(undefined),
});
export type PreviewTile = z.infer<typeof PreviewTile>;

const EntityRef = z.object({ id: text, name: text }).nullish().catch(undefined);

export const PreviewDashboard = z.object({
  dashboardMetadata: z
    .object({
      name: z.string().catch('(unnamed)'),
      tags: z.array(z.string()).nullish().catch(undefined),
      dashboardFilter: z.object({ timeframe: text, managementZone: EntityRef }).nullish().catch(undefined),
      dynamicFilters: z.object({ filters: z.array(z.string()).catch([]) }).nullish().catch(undefined),
    })
    .catch({ name: '(unnamed)' }),
  tiles: z.array(PreviewTile.catch({ tileType: 'UNKNOWN' })).catch([]),
});
export type PreviewDashboard = z.infer<typeof PreviewDashboard>;

/** A tile with its drawn rectangle (dashboard pixels, never smaller than one grid cell so no tile vanishes). */
export interface PlacedTile {
  index: number;
  tile: PreviewTile;
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * The title the service shows on a tile: a custom chart's own name (its tile `name` is often "Custom chart"), else
 * the tile's name (a Data Explorer tile's `customName` is mostly "Data explorer results"), else its customName.
 */
export function tileTitle(tile: PreviewTile): string {
  return tile.filterConfig?.customName || tile.name || tile.customName || '';
}

/** The service lays tiles out on a 38 px grid. */
export const GRID = 38;

export function readPreviewDashboard(dashboard: unknown): PreviewDashboard {
  const parsed = PreviewDashboard.safeParse(dashboard);
  return parsed.success ? parsed.data : { dashboardMetadata: { name: '(unnamed)' }, tiles: [] };
}

export function placeTiles(dashboard: PreviewDashboard): PlacedTile[] {
  return dashboard.tiles.map((tile, index) => {
    const b = tile.bounds ?? { top: 0, left: 0, width: 0, height: 0 };
    return { index, tile, x: Math.max(0, b.left), y: Math.max(0, b.top), width: Math.max(GRID, b.width), height: Math.max(GRID, b.height) };
  });
}

/** `Last 72 hours`-style texts the header shows: timeframe, management zone and dynamic filters. */
export function filterTexts(dashboard: PreviewDashboard): string[] {
  const meta = dashboard.dashboardMetadata;
  const out: string[] = [];
  if (meta.dashboardFilter?.timeframe) out.push(`timeframe: ${meta.dashboardFilter.timeframe}`);
  const zone = meta.dashboardFilter?.managementZone;
  if (zone) out.push(`zone: ${zone.name ?? zone.id ?? ''}`);
  for (const filter of meta.dynamicFilters?.filters ?? []) out.push(`filter: ${filter}`);
  return out;
}
