import type { DaemonStatusJson, LoopStatusJson } from './status-schema.js';

/** Files (and invalid files) `/status` lists per loop; the rest are counted. */
export const MAX_LISTED_FILES = 2_000;
/** Problems `/status` lists per file (a file keeps 100, each up to a few hundred characters). */
export const MAX_LISTED_ERRORS = 10;

/**
 * `/status` as served: each loop's `files` and `invalid` cut to their first MAX_LISTED_FILES (by file name), with how
 * many more there are, and each file's problems to its first MAX_LISTED_ERRORS. The endpoint needs no token, and the document is built whole at each request: 20 environments
 * of a commit's 10,000 invalid files each made it hundreds of megabytes (100 of them ran the daemon out of memory on
 * one request). `/metrics` and the console keep every file.
 */
export function boundedStatus(status: DaemonStatusJson): DaemonStatusJson {
  if ('environments' in status) return { ...status, environments: status.environments.map((env) => ({ ...env, ...boundedLists(env) })) };
  return { ...status, ...boundedLists(status) };
}

function boundedLists(loop: LoopStatusJson): Pick<LoopStatusJson, 'files' | 'invalid' | 'filesNotListed' | 'invalidNotListed' | 'source'> {
  const files = Object.entries(loop.files);
  const pending = loop.source?.pending;
  return {
    // A pending commit's problems, one line each, are the same problems again.
    ...(loop.source && pending ? { source: { ...loop.source, pending: { ...pending, invalid: boundedErrors(pending.invalid, MAX_LISTED_FILES) } } } : loop.source ? { source: loop.source } : {}),
    files: Object.fromEntries(files.slice(0, MAX_LISTED_FILES).map(([file, state]) => [file, state.error === undefined ? state : { ...state, error: boundedErrors(state.error.split('\n')).join('\n') }])),
    invalid: loop.invalid.slice(0, MAX_LISTED_FILES).map((entry) => ({ ...entry, errors: boundedErrors(entry.errors) })),
    ...(files.length > MAX_LISTED_FILES ? { filesNotListed: files.length - MAX_LISTED_FILES } : {}),
    ...(loop.invalid.length > MAX_LISTED_FILES ? { invalidNotListed: loop.invalid.length - MAX_LISTED_FILES } : {}),
  };
}

/** A file's first MAX_LISTED_ERRORS problems, and a line saying how many more (`dashcd validate` lists them all). */
function boundedErrors(errors: readonly string[], most = MAX_LISTED_ERRORS): string[] {
  if (errors.length <= most) return [...errors];
  return [...errors.slice(0, most), `… and ${errors.length - most} more problems (dashcd validate lists them all)`];
}
