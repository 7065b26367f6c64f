import { z } from 'zod';
import { DocumentDescription, DocumentName, isDocumentId } from './documents.js';
import { closedObject } from './known-fields.js';

/**
 * The content of platform documents (the Dashboards and Notebooks apps' JSON, stored by the Document service) and
 * the dashcd file that carries one (docs/documents-as-code.md). Objects whose members every corpus document agrees on
 * are closed (an unknown key is a warning, an error with `--strict`); what the apps fill freely (visualization
 * settings, query state and results, Davis settings) is open and passed through untouched. Closed objects stay
 * `looseObject`s so an unknown key still reaches the service: the apps add members faster than any list here.
 */

/** Open: whatever the app writes there is kept as it is and never checked. */
const Open = z.looseObject({});

const TileTitle = z.string().optional();

/** A tile's query limits as the Dashboards app writes them (every corpus tile with a query has these five or none). */
const QuerySettings = closedObject(
  z.looseObject({
    maxResultRecords: z.number().optional(),
    defaultScanLimitGbytes: z.number().optional(),
    maxResultMegaBytes: z.number().optional(),
    defaultSamplingRatio: z.number().optional(),
    enableSampling: z.boolean().optional(),
  }),
);

const TileTimeframe = closedObject(z.looseObject({ tileTimeframe: Open.optional(), tileTimeframeEnabled: z.boolean().optional() }));
const TileSegments = closedObject(z.looseObject({ tileSegments: z.array(z.unknown()).optional(), tileSegmentsEnabled: z.boolean().optional() }));

/** Members of tiles that show a visualization (`data`: a DQL query; `code`: a function's result). */
const visualized = {
  title: TileTitle,
  visualization: z.string().optional(),
  visualizationSettings: Open.optional(),
  davis: Open.optional(),
};

const DataTile = closedObject(
  z.looseObject({
    type: z.literal('data'),
    ...visualized,
    description: z.string().optional(),
    query: z.string(),
    querySettings: QuerySettings.optional(),
    timeframe: TileTimeframe.optional(),
    segments: TileSegments.optional(),
    // The query builder's model (`subType: dql-builder-…`): the app's own, open.
    queryConfig: Open.optional(),
    subType: z.string().optional(),
  }),
);
const CodeTile = closedObject(z.looseObject({ type: z.literal('code'), ...visualized, input: z.string() }));
const MarkdownTile = closedObject(z.looseObject({ type: z.literal('markdown'), title: TileTitle, content: z.string() }));
const AnnotationTile = closedObject(z.looseObject({ type: z.literal('annotation'), title: TileTitle, content: z.string() }));
const SloTile = closedObject(z.looseObject({ type: z.literal('slo'), title: TileTitle, input: z.string() }));

export const DashboardTile = z.discriminatedUnion('type', [DataTile, MarkdownTile, CodeTile, AnnotationTile, SloTile]);
export type DashboardTile = z.infer<typeof DashboardTile>;

const GridUnit = z.number().int().nonnegative();

/** Where a tile sits on the dashboard's grid (24 columns unless `settings.gridLayout` says otherwise). */
export const TileLayout = closedObject(z.looseObject({ x: GridUnit, y: GridUnit, w: GridUnit.positive(), h: GridUnit.positive() }));
export type TileLayout = z.infer<typeof TileLayout>;

export const DashboardVariable = closedObject(
  z.looseObject({
    key: z.string().min(1),
    type: z.enum(['query', 'text', 'csv', 'code']),
    version: z.number().int().optional(),
    visible: z.boolean().optional(),
    editable: z.boolean().optional(),
    input: z.string().optional(),
    multiple: z.boolean().optional(),
    defaultValue: z.union([z.string(), z.array(z.string())]).optional(),
  }),
);

const DashboardSettings = closedObject(
  z.looseObject({
    gridLayout: closedObject(z.looseObject({ mode: z.string().optional(), columnsCount: z.number().int().positive().optional() })).optional(),
    defaultTimeframe: closedObject(z.looseObject({ value: Open.optional(), enabled: z.boolean().optional() })).optional(),
  }),
);

/** Tiles and layouts are maps keyed alike ("0", "1", … or any string): a tile's layout is `layouts[key]`. */
export const dashboardContentShape = {
  version: z.number().int().positive(),
  variables: z.array(DashboardVariable).optional(),
  tiles: z.record(z.string(), DashboardTile),
  layouts: z.record(z.string(), TileLayout),
  settings: DashboardSettings.optional(),
  annotations: z.array(z.unknown()).optional(),
  importedWithCode: z.boolean().optional(),
  refreshRate: z.number().optional(),
};
export const DashboardContent = closedObject(z.looseObject(dashboardContentShape));
export type DashboardContent = z.infer<typeof DashboardContent>;

/** Every section has an id, unique in its notebook: sections are matched by it (plans, overrides). */
const SectionId = z.string().min(1);

const MarkdownSection = closedObject(z.looseObject({ id: SectionId, type: z.literal('markdown'), markdown: z.string(), hasContent: z.boolean().optional() }));
/**
 * What sections that run something (a DQL query, a function) share. `state` holds the input, its settings and,
 * often, its cached result (up to megabytes): the app's own, open.
 */
const runSection = { title: z.string().optional(), showTitle: z.boolean().optional(), state: Open };

const DqlSection = closedObject(
  z.looseObject({
    id: SectionId,
    type: z.literal('dql'),
    ...runSection,
    showInput: z.boolean().optional(),
    height: z.number().optional(),
    drilldownPath: z.array(z.unknown()).optional(),
    filterSegments: z.array(z.unknown()).optional(),
    previousFilterSegments: z.array(z.unknown()).optional(),
    davisAnalysis: Open.optional(),
    queryConfig: Open.optional(),
    previousQueryConfig: Open.optional(),
  }),
);
const FunctionSection = closedObject(
  z.looseObject({
    id: SectionId,
    type: z.literal('function'),
    ...runSection,
    foldings: z.array(z.unknown()).optional(),
  }),
);

export const NotebookSection = z.discriminatedUnion('type', [MarkdownSection, DqlSection, FunctionSection]);
export type NotebookSection = z.infer<typeof NotebookSection>;

export const notebookContentShape = {
  version: z.string().min(1),
  defaultTimeframe: closedObject(z.looseObject({ from: z.string(), to: z.string(), details: Open.optional() })).optional(),
  defaultSegments: z.array(z.unknown()).optional(),
  sections: z.array(NotebookSection),
};
export const NotebookContent = closedObject(z.looseObject(notebookContentShape));
export type NotebookContent = z.infer<typeof NotebookContent>;

/** The member of a document file that holds what the content does not: which kind, the id, name and visibility. */
export const DOCUMENT_KEY = 'document';
/** dashcd's own settings (environments, overrides), as in classic files: never part of the content. */
export const DASHCD_KEY = 'dashcd';

export const DOCUMENT_KINDS = ['dashboard', 'notebook'] as const;
export const DocumentKind = z.enum(DOCUMENT_KINDS);
export type DocumentKind = z.infer<typeof DocumentKind>;

/**
 * A file's own id: any id the service gives or accepts, a UUID included (a document made in the apps and pulled
 * keeps its id). Only ids dashcd derives must not be UUIDs; `isDocumentId` also keeps an id safe as a file name.
 */
const FileDocumentId = z.string().refine(isDocumentId, 'A document id is 1 to 100 letters, digits and dashes.');

const blockShape = {
  id: FileDocumentId.optional(),
  name: DocumentName,
  description: DocumentDescription.optional(),
  /** Default false (public), as Monaco's: a team can see what CI made. */
  isPrivate: z.boolean().optional(),
};

const blockOf = <K extends DocumentKind>(kind: K) => closedObject(z.looseObject({ kind: z.literal(kind), ...blockShape }));

/** `document:` whatever its kind: what kind detection and pull work with. */
export const DocumentBlock = closedObject(z.looseObject({ kind: DocumentKind, ...blockShape }));
export type DocumentBlock = z.infer<typeof DocumentBlock>;

/**
 * A document file's body as the pipeline carries it (desired state, plans, apply): `document:` without its id (the id
 * is identity) beside the content's members; `dashcd:` is never part of it.
 */
export type DocumentFileBody = { readonly [DOCUMENT_KEY]: BodyBlock } & Readonly<Record<string, unknown>>;

/** `document:` as a body holds it: the block's own members (Omit over the block's open type would lose them). */
export interface BodyBlock {
  readonly kind: DocumentKind;
  readonly name: string;
  readonly description?: string | undefined;
  readonly isPrivate?: boolean | undefined;
}

/**
 * A live document in the same form (kinds/platform-documents.ts makes it from the service's metadata and content):
 * what a plan compares with a file's body. `version` is what a write must name (optimistic locking), never compared.
 */
export type LiveDocumentBody = { readonly [DOCUMENT_KEY]: BodyBlock & { readonly version: number } } & Readonly<Record<string, unknown>>;

const fileMembers = <K extends DocumentKind>(kind: K) => ({
  [DOCUMENT_KEY]: blockOf(kind),
  // Checked where environments are resolved, as the classic `dashcd:` is.
  [DASHCD_KEY]: z.unknown().optional(),
});

/** A platform dashboard file: the app's content plus `document: { kind: dashboard, name, … }`. */
export const DashboardDocumentFile = closedObject(z.looseObject({ ...fileMembers('dashboard'), ...dashboardContentShape }));
export type DashboardDocumentFile = z.infer<typeof DashboardDocumentFile>;

/** A notebook file: the app's content plus `document: { kind: notebook, name, … }`. */
export const NotebookDocumentFile = closedObject(z.looseObject({ ...fileMembers('notebook'), ...notebookContentShape }));
export type NotebookDocumentFile = z.infer<typeof NotebookDocumentFile>;

/** Each kind's file schema: validation picks the one the file's `document.kind` names. */
export const DOCUMENT_FILE_SCHEMAS = { dashboard: DashboardDocumentFile, notebook: NotebookDocumentFile } as const;
