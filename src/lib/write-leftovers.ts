import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, TEMP_MARKER } from './durable-file.js';
import { ignoreMissing } from './fs-errors.js';
import { nodeFs, type FsLayer } from './fs-layer.js';
import type { Logger } from './logger.js';

/**
 * Removes the temp files that durable writes (writeFileDurable) killed mid-way left in `dir` itself, each logged,
 * and makes the removals durable. Only for a folder the caller owns alone (its store's, under the data dir's or the
 * archive's lock): another writer's temp file would be its write in progress. A missing folder has none.
 */
export async function removeWriteLeftovers(dir: string, log: Logger, fs: FsLayer = nodeFs): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => (ignoreMissing(error), []));
  const leftovers = entries.filter((entry) => entry.isFile() && entry.name.includes(TEMP_MARKER));
  for (const { name } of leftovers) {
    await fs.unlink(join(dir, name)).catch(ignoreMissing);
    log.warn({ file: join(dir, name) }, 'removed a temp file left by an interrupted write');
  }
  if (leftovers.length > 0) await fsyncDir(dir, fs);
}
