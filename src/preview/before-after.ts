import type { Operation } from 'fast-json-patch';
import fastJsonPatch from 'fast-json-patch';
import type { JsonValue } from '../plan/json-value.js';
import { dashboardChanges, notebookChanges } from './document-changes.js';
import { isDocumentValue, readPreviewDocument, type PreviewDocument } from './document-preview-model.js';
import { readPreviewDashboard } from './preview-model.js';
import { documentPart } from './render-document.js';
import { layoutPart, MARK_COLOURS, MARK_LABELS, SMALL_FONT, svgDocument, type LayoutPart } from './render-layout.js';
import { escapeXml } from './svg-text.js';
import { tileChanges, type TileMark } from './tile-changes.js';

export interface BeforeAfterInput {
  /** The live dashboard, normalised as the plan compared it; absent for a create (or when it cannot be recovered). */
  before?: unknown;
  /** The desired dashboard, normalised the same way; absent for a delete. */
  after?: unknown;
  /** The plan's patch, live → desired (empty for a create or a delete). */
  patch: readonly Operation[];
}

const GAP = 12;
const LEGEND_HEIGHT = 24;

/** What one layout of the picture is drawn with: its caption, marks and whether its header is outlined. */
interface SideOptions<K> {
  y: number;
  caption: string;
  marks?: ReadonlyMap<K, TileMark>;
  headerChanged?: boolean;
}

/** The two sides of a picture, by kind: how each is drawn, the marks the patch gives them, and the words used. */
interface Sides<K> {
  before?: ((options: SideOptions<K>) => LayoutPart) | undefined;
  after?: ((options: SideOptions<K>) => LayoutPart) | undefined;
  changes: { before: ReadonlyMap<K, TileMark>; after: ReadonlyMap<K, TileMark>; headerChanged: boolean };
  /** A create's caption: "new dashboard". */
  created: string;
  /** The legend's entry for a changed header. */
  headerLabel: string;
}

/**
 * One picture of a planned write, PICTURE_WIDTH wide so it reads in a pull-request comment: the live layout above
 * the desired one, each tile marked with what happens to it (added green, removed red, changed amber, moved or
 * resized blue, with a label saying which) and a legend of the marks used. A create is one layout, "new dashboard".
 * A platform dashboard or notebook (a value with a `document:` member) is drawn as render-document.ts draws it, its
 * tiles marked by key and its sections by place (document-changes.ts). The diff text is not repeated here: the
 * comment and the HTML page show it beside the picture. Pure.
 */
export function renderBeforeAfterSvg(input: BeforeAfterInput): string {
  return isDocumentValue(input.after ?? input.before) ? stacked(documentSides(input), input.patch) : stacked(classicSides(input), input.patch);
}

function classicSides(input: BeforeAfterInput): Sides<number> {
  const before = input.before === undefined ? undefined : readPreviewDashboard(input.before);
  const after = input.after === undefined ? undefined : readPreviewDashboard(input.after);
  return {
    before: before && ((options) => layoutPart(before, options)),
    after: after && ((options) => layoutPart(after, options)),
    changes: tileChanges(input.patch, before?.tiles.length ?? 0),
    created: 'new dashboard',
    headerLabel: 'name, tags or filters changed',
  };
}

function documentSides(input: BeforeAfterInput): Sides<string> {
  const read = (value: unknown) => (isDocumentValue(value) ? readPreviewDocument(value) : undefined);
  const [before, after] = [read(input.before), read(input.after)];
  const kind = (after ?? before)?.kind;
  return {
    before: before && ((options) => documentPart(before, options)),
    after: after && ((options) => documentPart(after, options)),
    changes: kind === 'notebook' ? notebookChanges(input.patch, before?.kind === 'notebook' ? before.sections.length : 0) : dashboardChanges(input.patch, tileKeys(before), tileKeys(after)),
    created: kind === 'notebook' ? 'new notebook' : 'new platform dashboard',
    headerLabel: 'name, description or settings changed',
  };
}

function tileKeys(doc: PreviewDocument | undefined): string[] {
  return doc?.kind === 'dashboard' ? doc.tiles.map((t) => t.key) : [];
}

function stacked<K>(sides: Sides<K>, patch: readonly Operation[]): string {
  const { changes } = sides;
  const parts: string[] = [];
  let y = 0;
  const add = (part: LayoutPart): void => {
    parts.push(part.body);
    y += part.height + GAP;
  };
  if (sides.before) add(sides.before({ y, caption: 'before (live)', marks: changes.before, headerChanged: changes.headerChanged }));
  if (sides.after) add(sides.after(sides.before ? { y, caption: 'after (desired)', marks: changes.after, headerChanged: changes.headerChanged } : { y, caption: afterCaption(patch, sides.created) }));
  const used = new Set([...changes.before.values(), ...changes.after.values()]);
  const marked = used.size > 0 || changes.headerChanged;
  if (marked) parts.push(legend(used, changes.headerChanged ? sides.headerLabel : undefined, y));
  return svgDocument(marked ? y + LEGEND_HEIGHT : Math.max(1, y - GAP), parts.join(''));
}

/** Without a live side: a create, or an update whose live layout could not be recovered from the patch. */
function afterCaption(patch: readonly Operation[], created: string): string {
  return patch.length === 0 ? created : 'after (desired); the live layout could not be drawn, see the diff';
}

function legend(used: ReadonlySet<TileMark>, headerLabel: string | undefined, y: number): string {
  const entries: { label: string; colour: string }[] = (Object.keys(MARK_LABELS) as TileMark[]).filter((m) => used.has(m)).map((m) => ({ label: MARK_LABELS[m], colour: MARK_COLOURS[m].stroke }));
  if (headerLabel !== undefined) entries.push({ label: headerLabel, colour: MARK_COLOURS.changed.stroke });
  let x = 8;
  const items = entries.map(({ label, colour }) => {
    const item = `<rect x="${x}" y="${y + 4}" width="14" height="14" rx="3" fill="${colour}"/><text x="${x + 19}" y="${y + 16}" font-size="${SMALL_FONT}">${escapeXml(label)}</text>`;
    x += 19 + Math.ceil(label.length * SMALL_FONT * 0.62) + 16;
    return item;
  });
  return `<g class="legend">${items.join('')}</g>\n`;
}

/**
 * The live side of an update, recovered from the desired side and the plan's patch: each operation undone, last
 * first (`before[i]` holds what operation i replaced or removed). Undefined when the patch does not fit the value
 * (ignore pointers dropped part of it when the plan was made): then there is no honest before picture to draw.
 */
export function undoPatch(after: JsonValue, patch: readonly Operation[], before: readonly (JsonValue | null)[]): JsonValue | undefined {
  const inverse: Operation[] = [];
  for (let i = patch.length - 1; i >= 0; i--) {
    const op = patch[i] as Operation;
    const old = before[i] ?? null;
    if (op.op === 'add') inverse.push({ op: 'remove', path: op.path });
    else if (op.op === 'remove') inverse.push({ op: 'add', path: op.path, value: old });
    else if (op.op === 'replace') inverse.push({ op: 'replace', path: op.path, value: old });
    else return undefined;
  }
  try {
    return fastJsonPatch.applyPatch(structuredClone(after), inverse, true, true).newDocument;
  } catch {
    return undefined;
  }
}
