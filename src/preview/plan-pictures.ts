import type { Plan, PlanChange } from '../plan/build-plan.js';
import { fileComparedForm } from '../documents/compared-form.js';
import type { JsonValue } from '../plan/json-value.js';
import { normalizeForCompare } from '../dashboards/normalize.js';
import { renderBeforeAfterSvg, undoPatch } from './before-after.js';
import { isDocumentValue } from './document-preview-model.js';
import { patchLines } from '../plan/patch-lines.js';

type PatchedChange = Extract<PlanChange, { action: 'update' | 'adopt' }>;

/** The before/after picture of one planned write, named for a file a CI job uploads. */
export interface PlanPicture {
  change: PlanChange;
  /** `dashboards_hosts.yaml.png`-style: unique per file, safe in a path and a URL. */
  fileName: string;
  svg: string;
  /** The plan's diff for the change (patch-lines), shown beside the picture by the page or comment that has it. */
  diffLines: string[];
}

/**
 * One picture per dashboard the plan would write: an update shows live (recovered from the plan's patch) above
 * desired, a create shows the new layout. Pure: drawn from the plan value only.
 */
export function planPictures(plan: Plan): PlanPicture[] {
  return plan.changes.flatMap((change) => {
    if (change.action === 'update') return [patchedPicture(change)];
    if (change.action === 'create') {
      const svg = renderBeforeAfterSvg({ after: change.desired, patch: [] });
      return [{ change, fileName: pictureFileName(change.file), svg, diffLines: [] }];
    }
    return [];
  });
}

/** An update's or adoption's before/after: live (recovered from the patch) above desired, and the diff lines. */
export function patchedPicture(change: PatchedChange): PlanPicture {
  // The plan's patch is between compared forms, so the picture is drawn from them: its paths and indexes match.
  const after = comparedAfter(change.desired);
  const before = undoPatch(after, change.patch, change.before);
  const diffLines = patchLines(change);
  const svg = renderBeforeAfterSvg({ ...(before === undefined ? {} : { before }), after, patch: change.patch });
  return { change, fileName: pictureFileName(change.file), svg, diffLines };
}

/**
 * The desired side as the plan compared it: a classic dashboard normalised, a platform document in its compared
 * form (documents/compared-form.ts: the content beside `document: { kind, name, isPrivate, description }`).
 */
function comparedAfter(desired: unknown): JsonValue {
  return isDocumentValue(desired) ? fileComparedForm(desired, []) : normalizeForCompare(desired, { ignore: [] });
}

export function pictureFileName(file: string): string {
  return `${file.replace(/[^A-Za-z0-9._-]+/g, '_')}.png`;
}

/** Markdown lines linking the uploaded pictures, for the end of the PR comment, under `heading` (markdown). */
export function previewLinksMarkdown(pictures: readonly PlanPicture[], baseUrl: string, heading = 'Layout previews'): string {
  if (pictures.length === 0) return '';
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const links = pictures.map((p) => `- [${escapeLinkText(p.change.name)}](${base}${encodeURIComponent(p.fileName)})`);
  return `\n**${heading}**\n\n${links.join('\n')}\n`;
}

function escapeLinkText(text: string): string {
  return text.replace(/[\\`*_[\]<>|!]/g, (c) => `\\${c}`).replace(/[\u0000-\u001f]/g, ' ');
}
