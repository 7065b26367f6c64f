import type { DaemonStatusJson, LoopStatusJson } from './status-schema.js';

/** Files (and invalid files) `/status` lists per loop; the rest are counted. */
export const MAX_LISTED_FILES = 2_000;

/**
 * `/status` as served: each loop's `files` and `invalid` cut to their first MAX_LISTED_FILES (by file name), with how
 * many more there are. The endpoint needs no token, and the document is built whole at each request: 20 environments
 * of a commit's 10,000 invalid files each made it hundreds of megabytes (100 of them ran the daemon out of memory on
 * one request). `/metrics` and the console keep every file.
 */
export function boundedStatus(status: DaemonStatusJson): DaemonStatusJson {
  if ('environments' in status) return { ...status, environments: status.environments.map((env) => ({ ...env, ...boundedLists(env) })) };
  return { ...status, ...boundedLists(status) };
}

function boundedLists(loop: LoopStatusJson): Pick<LoopStatusJson, 'files' | 'invalid' | 'filesNotListed' | 'invalidNotListed'> {
  const files = Object.entries(loop.files);
  return {
    files: files.length <= MAX_LISTED_FILES ? loop.files : Object.fromEntries(files.slice(0, MAX_LISTED_FILES)),
    invalid: loop.invalid.length <= MAX_LISTED_FILES ? loop.invalid : loop.invalid.slice(0, MAX_LISTED_FILES),
    ...(files.length > MAX_LISTED_FILES ? { filesNotListed: files.length - MAX_LISTED_FILES } : {}),
    ...(loop.invalid.length > MAX_LISTED_FILES ? { invalidNotListed: loop.invalid.length - MAX_LISTED_FILES } : {}),
  };
}
