import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isCode } from '../lib/fs-errors.js';
import { MAX_SOURCE_BYTES } from '../schema/limits.js';
import { isSettled, stampOf, type FileStamp } from './file-stamps.js';

export type SourceFile =
  | { name: string; kind: 'read'; readonly source: string; contentHash: string }
  | { name: string; kind: 'gone' }
  | { name: string; kind: 'unreadable'; reason: string };

/**
 * What a caller knows of files from earlier runs (the check cache's stamps, check-cache-file.ts): a file whose stamp
 * it vouches for is not read, only stat'ed.
 */
export interface KnownFiles {
  /** The clock the stamps are taken by. */
  now(): number;
  /** The content hash of the file at `path` (absolute) when `stamp` is the one it was recorded with; else undefined. */
  knownHash(path: string, stamp: FileStamp): string | undefined;
  /** The file at `path` had `stamp` before its bytes, hashed to `contentHash`, were read; the stamp has settled. */
  noteHash(path: string, stamp: FileStamp, contentHash: string): void;
}

/**
 * Reads `names` (relative to `dir`); the hash is SHA-256 of the bytes, hex. A file deleted meanwhile is `gone`;
 * a symlink whose target is missing is `unreadable` (it is still there: its dashboard is not deleted).
 * Synchronous on purpose: dashboard files are small and usually in the page cache, where a `readFileSync` loop
 * reads 1,000 of them in a few tens of milliseconds, several times faster than as many promise-based reads.
 * With `known`, a file is opened and stat'ed through that descriptor (before its bytes are read from it, so a write
 * after the stat changes the stamp recorded with them, and a path switched to another file meanwhile cannot pair one
 * file's stamp with the other's bytes), and one whose stamp `known` vouches for is not read at all: its `source` is
 * read when asked. Opening, not a stat by path, is what makes an NFS client check the server: a stat alone may be
 * answered from its attribute cache, seconds old.
 */
export function readSources(dir: string, names: readonly string[], known?: KnownFiles): SourceFile[] {
  const statsFrom = known?.now() ?? 0;
  return names.map((name): SourceFile => {
    const path = join(dir, name);
    try {
      // Non-blocking: a FIFO (named like a dashboard file, or a symlink's target) would block the open until a writer
      // came; it has no effect on a regular file.
      const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const stats = fstatSync(fd);
        // A device reports size 0 and never ends (a symlink to /dev/zero): only regular files are read.
        if (!stats.isFile()) return { name, kind: 'unreadable', reason: stats.isDirectory() ? (REASONS.EISDIR as string) : 'not a regular file (a device, a FIFO or a socket)' };
        if (stats.size > MAX_SOURCE_BYTES) return { name, kind: 'unreadable', reason: tooLargeReason(stats.size) };
        if (known === undefined) return readFile(name, readFileSync(fd));
        // An inode or device number past 2^53 is rounded in a double: two files could share a stamp.
        const stamp = Number.isSafeInteger(stats.ino) && Number.isSafeInteger(stats.dev) ? stampOf(stats) : undefined;
        const knownHash = stamp === undefined ? undefined : known.knownHash(path, stamp);
        if (knownHash !== undefined) {
          return {
            name,
            kind: 'read',
            get source() {
              return textOrEmpty(path);
            },
            contentHash: knownHash,
          };
        }
        const read = readFile(name, readFileSync(fd));
        if (stamp !== undefined && isSettled(stamp, statsFrom)) known.noteHash(path, stamp, read.contentHash);
        return read;
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if (isCode(error, 'ENOENT')) return isLink(path) ? { name, kind: 'unreadable', reason: `a symlink to ${readlinkSync(path)}, which does not exist` } : { name, kind: 'gone' };
      return { name, kind: 'unreadable', reason: REASONS[errorCode(error)] ?? errorCode(error) };
    }
  });
}


function tooLargeReason(size: number): string {
  return `${(size / (1024 * 1024)).toFixed(1)} MiB: a file is read up to ${MAX_SOURCE_BYTES / (1024 * 1024)} MiB (a classic dashboard is at most 1 MiB as the JSON apply sends; a larger document is not managed as a file); split it`;
}

function readFile(name: string, bytes: Buffer): SourceFile & { kind: 'read' } {
  return {
    name,
    kind: 'read',
    // Decoded on each read: the bytes stay off the JS heap, where a folder's texts held until the checks are done
    // were copied by every young-generation collection (a sixth of a 10,000-file plan's main thread).
    get source() {
      return bytes.toString('utf8');
    },
    contentHash: createHash('sha256').update(bytes).digest('hex'),
  };
}

/**
 * The text of a file known by its stamp, read only when asked (only the diagnostics of a repeated id or of a
 * `dashcd:` member quote it; its check is cached). A file gone meanwhile reads as empty: the diagnostic points at its
 * start, and the next run, finding it gone, says so.
 */
function textOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

const REASONS: Record<string, string> = {
  ELOOP: 'a symlink that loops (ELOOP)',
  EISDIR: 'a folder, not a file (EISDIR)',
  EACCES: 'permission denied (EACCES)',
};

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
