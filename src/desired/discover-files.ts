import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { isCode } from '../lib/fs-errors.js';
import { shownPath } from '../lib/shown-path.js';
import type { Diagnostic } from './diagnostic.js';

export const DASHBOARD_FILE = /\.(ya?ml|json)$/i;

/** The one problem of a dashboards folder that is not there (`shown`: the folder as the user named it). */
export function missingFolderDiagnostic(shown: string): Diagnostic {
  return { file: shown, line: 0, col: 0, path: '', message: `dashboards folder not found: ${shown}; create it, or point --dir at the folder holding the dashboard files` };
}

/** That problem when `dir` (relative to `cwd`) is not a folder; undefined when it is. */
export async function missingFolder(dir: string, cwd: string): Promise<Diagnostic | undefined> {
  const root = resolve(cwd, dir);
  return (await discoverable(root)) ? undefined : missingFolderDiagnostic(shownPath(cwd, root));
}

export type DiscoverResult = { missing: true } | { missing: false; files: string[] };

/**
 * Dashboard files under `dir`, as paths relative to it with `/` separators, sorted by code unit so every machine
 * lists them in the same order. Dotfiles and dot-directories are skipped (editor and VCS leftovers). A symlink with
 * a dashboard file's name is always listed, whatever it points at, so that a broken or looping link is reported by
 * the reader instead of silently missing (a missing file looks like a deleted dashboard to prune); a link's id comes
 * from the link's own path, its content from its target, inside the folder or not. Symlinked folders are not
 * walked (no cycles).
 */
export async function discoverFiles(dir: string): Promise<DiscoverResult> {
  if (!(await discoverable(dir))) return { missing: true };
  const files: string[] = [];
  await walk(dir, '', files, []);
  return { missing: false, files: files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

async function discoverable(dir: string): Promise<boolean> {
  try {
    return (await stat(dir)).isDirectory();
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return false;
    throw error;
  }
}

/**
 * The files under `dir` that are not read as dashboards (not `.yaml`, `.yml` or `.json`; dotfiles aside), sorted: what
 * a folder of `api.bak` files holds when validate finds nothing to check.
 */
export async function filesNotRead(dir: string): Promise<string[]> {
  const others: string[] = [];
  await walk(dir, '', [], others).catch(() => undefined);
  return others.sort();
}

async function walk(root: string, prefix: string, out: string[], others: string[]): Promise<void> {
  const entries = await readdir(join(root, prefix), { withFileTypes: true });
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) await walk(root, relative, out, others);
    else if (DASHBOARD_FILE.test(entry.name) && (entry.isFile() || entry.isSymbolicLink())) out.push(relative);
    else others.push(relative);
  }
}
