import { lstat, readdir, stat } from 'node:fs/promises';
import { DEFAULT_ARCHIVE_DIR_NAME } from '../archive/archive-layout.js';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from './exit-codes.js';
import { DEFAULT_DATA_DIR_NAME } from '../server/data-dir-root.js';
import { defaultDashboardsRoot } from './dashboards-root.js';

/**
 * The embedded store's data dir: `--data` as given (relative to the working directory), else `.dashcd` in the
 * project root — the folder that holds the dashboards root every command finds from anywhere in the project — so a
 * command run from `dashboards/team/` uses the store (and finds the server that owns it) that one run from the top
 * does. Outside a project that is the working directory, as before.
 */
export async function dataDirOf(data: string | undefined, cwd: string): Promise<string> {
  const dir = await inProjectRoot(data, cwd, DEFAULT_DATA_DIR_NAME);
  // A file there (`--data dashcd.yaml`) made every command fail with "unexpected error: ENOTDIR … owner.json".
  await refuseFile(dir, data === undefined ? 'the data dir' : `--data ${data}`, 'point --data at a folder (it is created if missing)');
  await refuseLinks(dir, data === undefined ? 'the data dir' : `--data ${data}`, data === undefined);
  return dir;
}

/**
 * A symbolic link in a folder dashcd writes into, found by linkIn: exit 64 naming it. dashcd makes none there and
 * follows none, as a repository can commit one.
 */
async function refuseLinks(dir: string, label: string, rootCounts: boolean): Promise<void> {
  const link = await linkIn(dir, rootCounts);
  if (link !== undefined) {
    throw new UsageError(`${label}: ${link} is a symbolic link; dashcd makes none in the folders it writes and follows none (a repository can commit one): remove it, or name the folder it leads to with the flag`);
  }
}

/**
 * The first symbolic link in the data dir's tree, the root itself included when it is the project's own `.dashcd`.
 * dashcd never makes one there, and the default data dir is in the project: a pull request committing
 * `.dashcd/env/local/dashboards` as a link to a folder outside made `plan` delete, move and chmod files there. A
 * `--data` the operator names may itself be a link (a store on another disk); nothing below it may.
 */
async function linkIn(root: string, rootCounts: boolean): Promise<string | undefined> {
  if (rootCounts && (await lstat(root).catch(() => undefined))?.isSymbolicLink()) return root;
  const folders = [root];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isSymbolicLink()) return join(folder, entry.name);
      if (entry.isDirectory()) folders.push(join(folder, entry.name));
    }
  }
  return undefined;
}

/** The events archive: `--archive` as given, else `events-archive` in the project root, for the same reason. */
export async function archiveDirOf(archive: string | undefined, cwd: string, use: 'pull' | 'read'): Promise<string> {
  const dir = await inProjectRoot(archive, cwd, DEFAULT_ARCHIVE_DIR_NAME);
  // A pull failed with ENOTDIR (exit 1), a query said only that there was no archive.
  await refuseFile(dir, archive === undefined ? 'the events archive' : `--archive ${archive}`, use === 'pull' ? 'point --archive at a folder (it is created if missing)' : 'point --archive at the archive\'s folder');
  // In the project too, and a pull writes and sweeps there: a committed events-archive link led it outside.
  await refuseLinks(dir, archive === undefined ? 'the events archive' : `--archive ${archive}`, archive === undefined);
  return dir;
}

/** A file where a command wants its folder: exit 64 saying what to name instead. */
async function refuseFile(dir: string, label: string, instead: string): Promise<void> {
  if ((await stat(dir).catch(() => undefined))?.isDirectory() === false) throw new UsageError(`${label}: ${dir} is a file, not a folder: ${instead}`);
}

async function inProjectRoot(given: string | undefined, cwd: string, name: string): Promise<string> {
  if (given !== undefined) return resolve(cwd, given);
  return join(dirname(await defaultDashboardsRoot(cwd)), name);
}
