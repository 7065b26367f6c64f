import { resolve } from 'node:path';
import { cacheTurnedOff, openCheckCache } from '../desired/check-cache-file.js';
import type { DesiredCache } from '../desired/desired-cache.js';
import type { CommandIo, FlagValues } from './command.js';

/**
 * Runs `use` with the check cache of the dashboards folder `root` (desired/check-cache-file.ts), then saves what it
 * used; without one when `--no-cache` or DASHCD_CACHE=off says so, or no cache folder is known. `partial`: the run
 * reads some of the files only, so the others' checks stay in the file.
 */
export async function withCheckCache<T>(root: string, partial: boolean, flags: FlagValues, io: CommandIo, use: (cache: DesiredCache | undefined) => Promise<T>): Promise<T> {
  const cache = flags.cache === false || cacheTurnedOff(io.env) ? undefined : await openCheckCache(resolve(io.cwd, root), io.env);
  const result = await use(cache);
  await cache?.save({ keepUnseen: partial });
  return result;
}
