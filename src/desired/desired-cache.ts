import { packOnHeap, unpackFromHeap, type HeapBytes } from '../lib/heap-bytes.js';
import type { PackedCheck } from './packed-check.js';
import type { KnownFiles } from './read-sources.js';

/**
 * File checks by content hash, for callers that load the same folder again and again (the daemon): a file whose
 * bytes did not change is neither parsed nor validated again. Values are copied in and out, because callers own
 * the dashboards they get and may change them.
 */
export interface DesiredCache {
  get(contentHash: string): PackedCheck | undefined;
  set(contentHash: string, check: PackedCheck): void;
  readonly size: number;
  /** Content hashes by file stamp (the CLI's cache between runs): files it vouches for are not read again. */
  readonly files?: KnownFiles;
}

/**
 * Least recently used entries go first once `maxEntries` is reached (old versions of edited files).
 *
 * Entries are held serialised (the structured-clone format, so a value copies exactly as structuredClone would) and
 * deflated: a 20-tile dashboard is about 3 KB that way instead of about 37 KB as objects, which is what lets the
 * daemon hold 10,000 of them. Fastest deflate level: reading an entry back (inflate + deserialize, ~0.2 ms) costs
 * no more than the structuredClone it replaces, and a tenth of checking the file again. Held on V8's heap
 * (heap-bytes.ts): 10,000 of them kept in malloc pinned the daemon's freed memory.
 */
export function createDesiredCache({ maxEntries = 10_000 }: { maxEntries?: number } = {}): DesiredCache {
  const entries = new Map<string, HeapBytes>();
  return {
    get(contentHash) {
      const packed = entries.get(contentHash);
      if (packed === undefined) return undefined;
      entries.delete(contentHash);
      entries.set(contentHash, packed);
      return unpackFromHeap(packed) as PackedCheck;
    },
    set(contentHash, check) {
      entries.delete(contentHash);
      entries.set(contentHash, packOnHeap(check));
      while (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
  };
}
