import type { Operation } from 'fast-json-patch';
import fastJsonPatch from 'fast-json-patch';
import type { JsonValue } from '../plan/json-value.js';
import { readPreviewDashboard } from './preview-model.js';
import { layoutPart, MARK_COLOURS, svgDocument, type LayoutPart } from './render-layout.js';
import { clip, escapeXml } from './svg-text.js';
import { tileChanges } from './tile-changes.js';

export interface BeforeAfterInput {
  /** The live dashboard, normalised as the plan compared it; absent for a create. */
  before?: unknown;
  /** The desired dashboard, normalised the same way; absent for a delete. */
  after?: unknown;
  /** The plan's patch, live → desired (empty for a create or a delete). */
  patch: readonly Operation[];
  /** The plan's own text for the patch (patch-lines), shown beside the pictures. */
  diffLines: readonly string[];
}

const GAP = 40;
const DIFF_WIDTH = 760;
const DIFF_LINE_HEIGHT = 16;
const MAX_DIFF_LINES = 300;
const DIFF_CHARS = 104;

/**
 * One picture of an update: the live layout (removed tiles red, moved or edited amber), the desired layout (added
 * green, moved or edited amber) and the plan's diff text beside them. Pure: same input, same bytes.
 */
export function renderBeforeAfterSvg(input: BeforeAfterInput): string {
  const before = input.before === undefined ? undefined : readPreviewDashboard(input.before);
  const changes = tileChanges(input.patch, before?.tiles.length ?? 0);
  const parts: LayoutPart[] = [];
  let x = 0;
  if (before) {
    parts.push(layoutPart(before, { x, caption: 'before (live)', marks: changes.before, headerChanged: changes.headerChanged }));
    x += (parts[0]?.width ?? 0) + GAP;
  }
  if (input.after !== undefined) {
    const after = readPreviewDashboard(input.after);
    const marks = before ? changes.after : new Map(after.tiles.map((_, i) => [i, 'added'] as const));
    const part = layoutPart(after, { x, caption: before ? 'after (desired)' : 'new dashboard', marks, headerChanged: changes.headerChanged });
    parts.push(part);
    x += part.width + GAP;
  }
  const diff = diffPart(input.diffLines, x);
  const height = Math.max(diff.height, ...parts.map((p) => p.height));
  return svgDocument(x + diff.width, height, [...parts.map((p) => p.body), diff.body].join(''));
}

function diffPart(lines: readonly string[], x: number): LayoutPart {
  const shown = lines.slice(0, MAX_DIFF_LINES);
  if (lines.length > shown.length) shown.push(`… ${lines.length - shown.length} more lines (see dashcd plan)`);
  if (shown.length === 0) shown.push('(no changes)');
  const body = [
    `<g class="diff">`,
    `<text class="caption" x="${x}" y="16" font-size="16" font-weight="bold">diff</text>`,
    ...shown.map(
      (line, i) =>
        `<text x="${x}" y="${40 + i * DIFF_LINE_HEIGHT}" font-family="DejaVu Sans Mono, monospace" fill="${lineColour(line)}">${escapeXml(clip(line, DIFF_CHARS))}</text>`,
    ),
    `</g>`,
  ];
  return { width: DIFF_WIDTH, height: 48 + shown.length * DIFF_LINE_HEIGHT, body: `${body.join('\n')}\n` };
}

function lineColour(line: string): string {
  if (line.startsWith('+')) return MARK_COLOURS.added.stroke;
  if (line.startsWith('-')) return MARK_COLOURS.removed.stroke;
  if (line.startsWith('~')) return '#9a6700';
  return '#24292f';
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
