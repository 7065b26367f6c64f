import { relative, sep } from 'node:path';

/**
 * `path` as dashcd shows and keys it: relative to `cwd`, with `/` separators on every platform (diagnostics, ids'
 * files and the daemon's file lists compare these strings), and `.` for `cwd` itself.
 */
export function shownPath(cwd: string, path: string): string {
  return relative(cwd, path).split(sep).join('/') || '.';
}
