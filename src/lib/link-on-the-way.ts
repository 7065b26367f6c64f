import { lstat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';

/**
 * The first symbolic link (a dangling one too) among the folders from `cwd` down to `path`, `path` itself included,
 * or undefined. Only below the working folder, which in CI is the pull request's checkout: a committed `previews` or
 * `reports` link had the pictures and plan files a job writes go wherever it led. A path outside the working folder
 * is the operator's, as given, and checked no further.
 */
export async function linkOnTheWay(cwd: string, path: string): Promise<string | undefined> {
  const below = relative(cwd, path);
  // `..previews` is a folder of the working folder; only `..` itself, or a path starting `../`, leads out.
  if (below === '' || below === '..' || below.startsWith(`..${sep}`) || isAbsolute(below)) return undefined;
  let at = cwd;
  for (const part of below.split(sep)) {
    at = join(at, part);
    const entry = await lstat(at).catch(ifMissing);
    if (entry === undefined) return undefined;
    if (entry.isSymbolicLink()) return at;
  }
  return undefined;
}

function ifMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}
