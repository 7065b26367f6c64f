import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { isCode } from '../lib/fs-errors.js';

export type SourceFile =
  | { name: string; kind: 'read'; readonly source: string; contentHash: string }
  | { name: string; kind: 'gone' }
  | { name: string; kind: 'unreadable'; reason: string };

/**
 * Reads `names` (relative to `dir`); the hash is SHA-256 of the bytes, hex. A file deleted meanwhile is `gone`;
 * a symlink whose target is missing is `unreadable` (it is still there: its dashboard is not deleted).
 * Synchronous on purpose: dashboard files are small and usually in the page cache, where a `readFileSync` loop
 * reads 1,000 of them in a few tens of milliseconds, several times faster than as many promise-based reads.
 */
export function readSources(dir: string, names: readonly string[]): SourceFile[] {
  return names.map((name): SourceFile => {
    try {
      const bytes = readFileSync(join(dir, name));
      const contentHash = createHash('sha256').update(bytes).digest('hex');
      return {
        name,
        kind: 'read',
        // Decoded on each read: the bytes stay off the JS heap, where a folder's texts held until the checks are done
        // were copied by every young-generation collection (a sixth of a 10,000-file plan's main thread).
        get source() {
          return bytes.toString('utf8');
        },
        contentHash,
      };
    } catch (error) {
      const path = join(dir, name);
      if (isCode(error, 'ENOENT')) return isLink(path) ? { name, kind: 'unreadable', reason: `a symlink to ${readlinkSync(path)}, which does not exist` } : { name, kind: 'gone' };
      return { name, kind: 'unreadable', reason: REASONS[errorCode(error)] ?? errorCode(error) };
    }
  });
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
