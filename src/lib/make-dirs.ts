import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * `mkdir -p`: `dir` and every missing folder above it, nothing when it is a folder already; the folders it made,
 * outermost first. Not Node's
 * `mkdir(dir, { recursive: true })`, which loops for ever, at full CPU, when a `mkdir` answers ENOENT under a parent
 * that exists (procfs and sysfs do: `dashcd serve --data /proc/nope` never answered); here such a folder is the
 * error it is.
 */
export async function makeDirs(dir: string, mode?: number): Promise<string[]> {
  try {
    await mkdir(dir, mode);
    return [dir];
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && (await isFolder(dir))) return [];
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir) throw error;
  }
  const above = await makeDirs(dirname(dir), mode);
  try {
    await mkdir(dir, mode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && (await isFolder(dir))) return above;
    throw error;
  }
  return [...above, dir];
}

async function isFolder(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}
