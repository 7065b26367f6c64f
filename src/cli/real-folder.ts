import { linkOnTheWay } from '../lib/link-on-the-way.js';
import { UsageError } from './exit-codes.js';

/**
 * Refuses (exit 64) a folder a command writes into when it, or a folder on the way to it from the working folder, is
 * a symbolic link (a dangling one too). In CI the working folder is the pull request's checkout: a committed
 * `previews`, `reports` or `dashboards` link had pictures, plan files and pulled dashboards written wherever it led.
 * A folder outside the working folder is the operator's, as given. `naming` starts the message (the flag, or the
 * folder's role); `advice` says what to name instead.
 */
export async function requireRealFolder(cwd: string, folder: string, naming: string, advice: string): Promise<void> {
  const link = await linkOnTheWay(cwd, folder);
  if (link !== undefined) throw new UsageError(`${naming}: ${link} is a symbolic link; ${advice}`);
}
