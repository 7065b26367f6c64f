import { join, resolve } from 'node:path';
import type { Plan } from '../plan/build-plan.js';
import { mkdirDurable, writeFileDurable } from '../lib/durable-file.js';
import { svgToPng } from '../preview/render-png.js';
import { planPictures, previewLinksMarkdown, type PlanPicture } from '../preview/plan-pictures.js';
import { requireRealFolders } from './real-folder.js';
import type { EnvironmentSection } from './render/render-environments.js';

/**
 * `plan --preview-dir DIR`: one before/after PNG per dashboard to be written, for a CI job to upload. Returns the
 * markdown that links them when their base URL is known (`--preview-url`), else ''.
 */
export async function writePlanPreviews(plan: Plan, dir: string, baseUrl: string | undefined, cwd: string): Promise<string> {
  const pictures = await writePictures(plan, dir, cwd);
  return baseUrl === undefined ? '' : previewLinksMarkdown(pictures, baseUrl);
}

/**
 * The same over environments: one sub-folder per planned environment (`DIR/prod/…`; the same file differs between
 * environments), linked under `--preview-url`'s matching sub-path, one list per environment.
 */
export async function writeEnvironmentPreviews(sections: readonly EnvironmentSection[], dir: string, baseUrl: string | undefined, cwd: string): Promise<string> {
  await previewFolder(dir, cwd);
  const links: string[] = [];
  for (const section of sections) {
    if (section.status !== 'planned') continue;
    // Environment names are lower-case letters, digits and `-` (environments-config.ts): a safe folder name as is.
    const pictures = await writePictures(section.plan, join(dir, section.name), cwd);
    if (baseUrl !== undefined && pictures.length > 0) links.push(previewLinksMarkdown(pictures, `${withSlash(baseUrl)}${encodeURIComponent(section.name)}/`, `Layout previews: \`${section.name}\``));
  }
  return links.join('');
}

async function writePictures(plan: Plan, dir: string, cwd: string): Promise<PlanPicture[]> {
  const pictures = planPictures(plan);
  await previewFolder(dir, cwd);
  for (const picture of pictures) await writeFileDurable(join(dir, picture.fileName), svgToPng(picture.svg));
  return pictures;
}

/**
 * Makes the folder pictures go into, refusing it when it, or a folder on the way to it from the working folder, is a
 * symbolic link (a dangling one too). Pictures are named after committed files, and a CI job's preview folder is
 * often inside the checkout: a pull request committing `previews`, `out` of `out/previews`, or `previews/prod` as a
 * link had them written wherever it led. A folder outside the working folder is the operator's, as given.
 */
async function previewFolder(dir: string, cwd: string): Promise<void> {
  await requireRealFolders(cwd, [{ folder: dir, naming: '--preview-dir' }], 'name a folder of its own (pictures are written only into real folders)');
  await mkdirDurable(dir);
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

export function previewDirOf(cwd: string, dir: string | undefined): string | undefined {
  return dir === undefined ? undefined : resolve(cwd, dir);
}
