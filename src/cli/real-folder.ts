import { linkOnTheWay } from '../lib/link-on-the-way.js';
import { workTreeRootOf } from './dashboards-root.js';
import { UsageError } from './exit-codes.js';

/**
 * Refuses (exit 64) a folder a command writes into when it, or a folder on the way to it from the top of the
 * checkout, is a symbolic link (a dangling one too). In CI the checkout is the pull request's: a committed
 * `previews`, `reports` or `dashboards` link had pictures, plan files and pulled dashboards written wherever it led.
 * The top is the git work tree root above the working folder (a job may run from a subfolder, and commands find the
 * dashboards folder up there), else the working folder. A folder outside it is the operator's, as given. `naming`
 * starts the message (the flag, or the folder's role); `advice` says what to name instead.
 */
export async function requireRealFolder(cwd: string, folder: string, naming: string, advice: string): Promise<void> {
  const top = (await workTreeRootOf(cwd)) ?? cwd;
  const link = await linkOnTheWay(top, folder);
  if (link !== undefined) throw new UsageError(`${naming}: ${link} is a symbolic link; ${advice}`);
}
