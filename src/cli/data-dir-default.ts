import { lstat, readdir, stat } from 'node:fs/promises';
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
  if ((await stat(dir).catch(() => undefined))?.isDirectory() === false) {
    throw new UsageError(`${data === undefined ? 'the data dir' : `--data ${data}`}: ${dir} is a file, not a folder: point --data at a folder (it is created if missing)`);
  }
  const link = await linkIn(dir, data === undefined);
  if (link !== undefined) {
    throw new UsageError(`${data === undefined ? 'the data dir' : `--data ${data}`}: ${link} is a symbolic link; dashcd makes none in its data dir and follows none (a repository can commit one into .dashcd/): remove it, or point --data at the folder it leads to`);
  }
  return dir;
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
export function archiveDirOf(archive: string | undefined, cwd: string): Promise<string> {
  return inProjectRoot(archive, cwd, DEFAULT_ARCHIVE_DIR_NAME);
}

export const DEFAULT_ARCHIVE_DIR_NAME = 'events-archive';

async function inProjectRoot(given: string | undefined, cwd: string, name: string): Promise<string> {
  if (given !== undefined) return resolve(cwd, given);
  return join(dirname(await defaultDashboardsRoot(cwd)), name);
}
