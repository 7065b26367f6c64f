import { resolve } from 'node:path';
import { cacheTurnedOff, openCheckCache, type CheckCacheFile } from '../desired/check-cache-file.js';
import type { DesiredCache } from '../desired/desired-cache.js';
import type { CommandIo, FlagValues } from './command.js';

/**
 * The check cache of the dashboards folder `root` (desired/check-cache-file.ts), being read; undefined when
 * `--no-cache` or DASHCD_CACHE=off says so, or no cache folder is known. A command may start it early, while it loads
 * the modules it needs for the rest (plan: 15 MB inflated off the calling thread), and give it to withCheckCache.
 */
export function openCacheFor(root: string, flags: FlagValues, io: CommandIo): Promise<CheckCacheFile | undefined> {
  if (flags.cache === false || cacheTurnedOff(io.env)) return Promise.resolve(undefined);
  // Started before anyone awaits it: a failure must be no cache, never an unhandled rejection that ends the process.
  return openCheckCache(resolve(io.cwd, root), io.env).catch(() => undefined);
}

/**
 * Runs `use` with the check cache of the dashboards folder `root` (openCacheFor, or `opened` if the command started
 * it), then saves what it used. `partial`: the run reads some of the files only, so the others' checks stay in the file.
 */
export async function withCheckCache<T>(
  root: string,
  partial: boolean,
  flags: FlagValues,
  io: CommandIo,
  use: (cache: DesiredCache | undefined) => Promise<T>,
  opened: Promise<CheckCacheFile | undefined> = openCacheFor(root, flags, io),
): Promise<T> {
  const cache = await opened;
  const result = await use(cache);
  await cache?.save({ keepUnseen: partial });
  return result;
}
