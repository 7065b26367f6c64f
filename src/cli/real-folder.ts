import { linkOnTheWay } from '../lib/link-on-the-way.js';
import { workTreeRootOf } from './dashboards-root.js';
import { UsageError } from './exit-codes.js';

/** A folder a command writes into, and how its refusal names it (the flag, or the folder's role). */
export interface WrittenFolder {
  readonly folder: string;
  readonly naming: string;
}

/**
 * Refuses (exit 64) the first folder a command writes into that is, or has on the way to it from the top of the
 * checkout, a symbolic link (a dangling one too). In CI the checkout is the pull request's: a committed `previews`,
 * `reports` or `dashboards` link had pictures, plan files and pulled dashboards written wherever it led. The top is
 * the git work tree root above the working folder (a job may run from a subfolder, and commands find the dashboards
 * folder up there), else the working folder; it is found once for all the folders (a git process). A folder outside
 * it is the operator's, as given. `advice` says what to name instead.
 */
export async function requireRealFolders(cwd: string, folders: readonly WrittenFolder[], advice: string): Promise<void> {
  if (folders.length === 0) return;
  const top = (await workTreeRootOf(cwd)) ?? cwd;
  for (const { folder, naming } of folders) {
    const link = await linkOnTheWay(top, folder);
    if (link !== undefined) throw new UsageError(`${naming}: ${link} is a symbolic link; ${advice}`);
  }
}
