import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mapConcurrent } from '../lib/concurrency.js';
import { isCode } from './discover-files.js';

export type SourceFile =
  | { name: string; kind: 'read'; source: string; contentHash: string }
  | { name: string; kind: 'gone' }
  | { name: string; kind: 'unreadable'; reason: string };

/** Enough parallel reads to keep the disk busy without running into the open-file limit. */
const READ_CONCURRENCY = 64;

/** Reads `names` (relative to `dir`); the hash is SHA-256 of the bytes, hex. A file deleted meanwhile is `gone`. */
export async function readSources(dir: string, names: readonly string[]): Promise<SourceFile[]> {
  const read = await mapConcurrent(names, READ_CONCURRENCY, async (name): Promise<SourceFile> => {
    try {
      const bytes = await readFile(join(dir, name));
      return { name, kind: 'read', source: bytes.toString('utf8'), contentHash: createHash('sha256').update(bytes).digest('hex') };
    } catch (error) {
      if (isCode(error, 'ENOENT')) return { name, kind: 'gone' };
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : String(error);
      return { name, kind: 'unreadable', reason: code };
    }
  });
  return read.map((file, i) => file ?? { name: names[i] as string, kind: 'gone' });
}
