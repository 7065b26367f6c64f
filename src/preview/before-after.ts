import type { Operation } from 'fast-json-patch';
import fastJsonPatch from 'fast-json-patch';
import type { JsonValue } from '../plan/json-value.js';
import { readPreviewDashboard } from './preview-model.js';
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

/**
 * One picture of a planned write, PICTURE_WIDTH wide so it reads in a pull-request comment: the live layout above
 * the desired one, each tile marked with what happens to it (added green, removed red, changed amber, moved or
 * resized blue, with a label saying which) and a legend of the marks used. A create is one layout, "new dashboard".
 * The diff text is not repeated here: the comment and the HTML page show it beside the picture. Pure.
 */
export function renderBeforeAfterSvg(input: BeforeAfterInput): string {
  const before = input.before === undefined ? undefined : readPreviewDashboard(input.before);
  const changes = tileChanges(input.patch, before?.tiles.length ?? 0);
  const parts: string[] = [];
  let y = 0;
  const add = (part: LayoutPart): void => {
    parts.push(part.body);
    y += part.height + GAP;
  };
  if (before) add(layoutPart(before, { y, caption: 'before (live)', marks: changes.before, headerChanged: changes.headerChanged }));
  if (input.after !== undefined) {
    const after = readPreviewDashboard(input.after);
    add(layoutPart(after, before ? { y, caption: 'after (desired)', marks: changes.after, headerChanged: changes.headerChanged } : { y, caption: afterCaption(input.patch) }));
  }
  const used = new Set([...changes.before.values(), ...changes.after.values()]);
  const marked = used.size > 0 || changes.headerChanged;
  if (marked) parts.push(legend(used, changes.headerChanged, y));
  return svgDocument(marked ? y + LEGEND_HEIGHT : Math.max(1, y - GAP), parts.join(''));
}

/** Without a live side: a create, or an update whose live layout could not be recovered from the patch. */
function afterCaption(patch: readonly Operation[]): string {
  return patch.length === 0 ? 'new dashboard' : 'after (desired); the live layout could not be drawn, see the diff';
}

function legend(used: ReadonlySet<TileMark>, headerChanged: boolean, y: number): string {
  const entries: { label: string; colour: string }[] = (Object.keys(MARK_LABELS) as TileMark[]).filter((m) => used.has(m)).map((m) => ({ label: MARK_LABELS[m], colour: MARK_COLOURS[m].stroke }));
  if (headerChanged) entries.push({ label: 'name, tags or filters changed', colour: MARK_COLOURS.changed.stroke });
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
