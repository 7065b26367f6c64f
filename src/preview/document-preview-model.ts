import { z } from 'zod';
import { DOCUMENT_KEY } from '../schema/document-content.js';

/**
 * What a preview reads of a platform dashboard or notebook (a document file's value, or its compared form: both
 * hold the content beside a `document:` member). As preview-model.ts reads classic dashboards: every member is
 * optional and falls back on bad data, so a picture is drawn from whatever can be read, never refused.
 */
const text = z.string().nullish().catch(undefined);
const cells = z.number().finite().nonnegative().catch(0);

const Block = z.object({ kind: text, name: z.string().catch('(unnamed)').default('(unnamed)'), description: text, isPrivate: z.boolean().nullish().catch(undefined) }).catch({ name: '(unnamed)' });

export const PreviewDocumentTile = z.object({
  type: z.string().catch('unknown').default('unknown'),
  title: text,
  /** A markdown or annotation tile's text. */
  content: text,
  visualization: text,
});
export type PreviewDocumentTile = z.infer<typeof PreviewDocumentTile>;

/** A layout in grid cells; a missing or negative place is 0, a missing or empty size one cell. */
const Layout = z.object({ x: cells.default(0), y: cells.default(0), w: cells.default(1), h: cells.default(1) });

const Tiles = z.record(z.string(), PreviewDocumentTile.catch({ type: 'unknown' })).catch({});
const Layouts = z.record(z.string(), Layout.nullish().catch(undefined)).catch({});

const Settings = z.object({ gridLayout: z.object({ columnsCount: z.number().int().positive().nullish().catch(undefined) }).nullish().catch(undefined) }).nullish().catch(undefined);
const Variable = z.object({ key: text }).catch({});

export const PreviewSection = z.object({
  id: text,
  type: z.string().catch('unknown').default('unknown'),
  title: text,
  markdown: text,
  state: z.object({ input: z.object({ value: text }).nullish().catch(undefined), visualization: text }).nullish().catch(undefined),
});
export type PreviewSection = z.infer<typeof PreviewSection>;

const Timeframe = z.object({ from: text, to: text }).nullish().catch(undefined);

export interface DocumentHead {
  name: string;
  description?: string | null | undefined;
  isPrivate?: boolean | null | undefined;
}

export interface PreviewPlatformDashboard extends DocumentHead {
  kind: 'dashboard';
  /** Grid columns: `settings.gridLayout.columnsCount`, 24 by default. */
  columns: number;
  variables: string[];
  /** In the file's key order; a tile without a readable layout has none. */
  tiles: { key: string; tile: PreviewDocumentTile; layout?: z.infer<typeof Layout> | undefined }[];
}

export interface PreviewNotebook extends DocumentHead {
  kind: 'notebook';
  timeframe?: { from?: string | null | undefined; to?: string | null | undefined } | undefined;
  sections: PreviewSection[];
}

export type PreviewDocument = PreviewPlatformDashboard | PreviewNotebook;

/** The Dashboards app's grid, unless the dashboard's settings say otherwise. */
export const DEFAULT_COLUMNS = 24;

/** A value drawn as a platform document: a mapping with a `document:` mapping (detect-kind.ts's rule). */
export function isDocumentValue(value: unknown): value is Record<string, unknown> {
  return isMapping(value) && isMapping(value[DOCUMENT_KEY]);
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The document a value holds. Its kind is `document.kind`; a kind that is neither (a typo, a file being written) is
 * read off the content as detect-kind.ts does: a `sections` list is a notebook's, anything else a dashboard's.
 */
export function readPreviewDocument(value: Record<string, unknown>): PreviewDocument {
  const block = Block.parse(value[DOCUMENT_KEY]);
  const head: DocumentHead = { name: block.name, description: block.description, isPrivate: block.isPrivate };
  const notebook = block.kind === 'notebook' || (block.kind !== 'dashboard' && Array.isArray(value.sections));
  if (notebook) {
    const sections = z.array(PreviewSection.catch({ type: 'unknown' })).catch([]).parse(value.sections ?? []);
    return { kind: 'notebook', ...head, timeframe: Timeframe.parse(value.defaultTimeframe) ?? undefined, sections };
  }
  const layouts = Layouts.parse(value.layouts ?? {});
  const tiles = Object.entries(Tiles.parse(value.tiles ?? {})).map(([key, tile]) => ({ key, tile, layout: (Object.hasOwn(layouts, key) ? layouts[key] : undefined) ?? undefined }));
  const columns = Settings.parse(value.settings)?.gridLayout?.columnsCount ?? DEFAULT_COLUMNS;
  const variables = z.array(Variable).catch([]).parse(value.variables ?? []).flatMap((v) => (v.key ? [v.key] : []));
  return { kind: 'dashboard', ...head, columns, variables, tiles };
}

/** The first line with text in it, trimmed ('' when there is none). */
export function firstLine(text: string | null | undefined): string {
  return (text ?? '').split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}
