/**
 * A file-system call the machine refused (a data dir under `/proc`, a read-only mount, a file where a folder goes):
 * the operator's setup, not a bug in dashcd, so it is said as what could not be done to which path — without the
 * stack and the "unexpected error" a bug gets.
 */
export function fileSystemFailure(error: unknown): string | undefined {
  const { code, syscall, path } = (error ?? {}) as { code?: unknown; syscall?: unknown; path?: unknown };
  if (typeof code !== 'string' || !Object.hasOwn(REASONS, code) || typeof syscall !== 'string' || typeof path !== 'string') return undefined;
  return `cannot ${Object.hasOwn(ACTIONS, syscall) ? ACTIONS[syscall] : syscall} ${path}: ${REASONS[code]} (${code})`;
}

/**
 * The refusals that describe the setup, in Node's (libuv's) words; anything else (EIO, EBADF, …) stays an unexpected
 * error with its stack.
 */
const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOENT: 'no such file or directory',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EEXIST: 'file already exists',
  ENAMETOOLONG: 'name too long',
  ELOOP: 'too many symbolic links',
};

const ACTIONS: Readonly<Record<string, string>> = {
  mkdir: 'create the folder',
  open: 'open',
  scandir: 'list the folder',
  rename: 'rename',
  unlink: 'delete',
  rmdir: 'delete the folder',
  stat: 'read',
  lstat: 'read',
  chmod: 'change the mode of',
};
