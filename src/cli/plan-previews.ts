import { join, resolve } from 'node:path';
import type { Plan } from '../plan/build-plan.js';
import { mkdirDurable, writeFileDurable } from '../lib/durable-file.js';
import { svgToPng } from '../preview/render-png.js';
import { planPictures, previewLinksMarkdown } from '../preview/plan-pictures.js';

/**
 * `plan --preview-dir DIR`: one before/after PNG per dashboard to be written, for a CI job to upload. Returns the
 * markdown that links them when their base URL is known (`--preview-url`), else ''.
 */
export async function writePlanPreviews(plan: Plan, dir: string, baseUrl: string | undefined): Promise<string> {
  const pictures = planPictures(plan);
  await mkdirDurable(dir);
  for (const picture of pictures) await writeFileDurable(join(dir, picture.fileName), svgToPng(picture.svg));
  return baseUrl === undefined ? '' : previewLinksMarkdown(pictures, baseUrl);
}

export function previewDirOf(cwd: string, dir: string | undefined): string | undefined {
  return dir === undefined ? undefined : resolve(cwd, dir);
}
