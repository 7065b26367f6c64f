import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The bytes of the files in one folder now, for tests that watch a journal grow and shrink while its owner works:
 * a folder not made yet holds 0, and a file dropped between the listing and its stat (a compacted generation) counts
 * as gone rather than failing the wait that polls this.
 */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(dir).catch(ifMissing([]))) total += (await stat(join(dir, name)).catch(ifMissing({ size: 0 }))).size;
  return total;
}

function ifMissing<T>(value: T): (error: NodeJS.ErrnoException) => T {
  return (error) => {
    if (error.code === 'ENOENT') return value;
    throw error;
  };
}
