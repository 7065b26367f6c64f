import { dirname, join, resolve } from 'node:path';
import { DEFAULT_DATA_DIR_NAME } from '../server/data-dir-root.js';
import { defaultDashboardsRoot } from './dashboards-root.js';

/**
 * The embedded store's data dir: `--data` as given (relative to the working directory), else `.dashcd` in the
 * project root — the folder that holds the dashboards root every command finds from anywhere in the project — so a
 * command run from `dashboards/team/` uses the store (and finds the server that owns it) that one run from the top
 * does. Outside a project that is the working directory, as before.
 */
export async function dataDirOf(data: string | undefined, cwd: string): Promise<string> {
  if (data !== undefined) return resolve(cwd, data);
  return join(dirname(await defaultDashboardsRoot(cwd)), DEFAULT_DATA_DIR_NAME);
}
