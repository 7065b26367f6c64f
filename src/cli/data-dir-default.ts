import { stat } from 'node:fs/promises';
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
  return dir;
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
