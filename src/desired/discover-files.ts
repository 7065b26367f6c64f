import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isCode } from '../lib/fs-errors.js';

export const DASHBOARD_FILE = /\.(ya?ml|json)$/i;

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
  try {
    const info = await stat(dir);
    if (!info.isDirectory()) return { missing: true };
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return { missing: true };
    throw error;
  }
  const files: string[] = [];
  await walk(dir, '', files, []);
  return { missing: false, files: files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
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
