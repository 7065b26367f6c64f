import { releaseMemory } from '../../src/daemon/release-memory.js';

const TEXTS = 100;
const TEXT_CHARS = 200_000;

/**
 * Heap bytes still held, after full collections, by what `keep` keeps of each of 100 texts of 200,000 one-byte
 * characters (20 MB in all). Each text is `head(i)` repeated: a flat string of its own (Buffer.toString), the way a
 * file's contents or a response body arrive, for `keep` to cut values out of (`text.slice` of 13 characters or more
 * is a view that holds the whole text).
 */
export function heapHeldBy(head: (i: number) => string, keep: (text: string) => unknown): { held: number; kept: unknown[] } {
  releaseMemory();
  const before = process.memoryUsage().heapUsed;
  const kept: unknown[] = [];
  for (let i = 0; i < TEXTS; i++) kept.push(keep(Buffer.alloc(TEXT_CHARS, head(i)).toString('latin1')));
  releaseMemory();
  return { held: process.memoryUsage().heapUsed - before, kept };
}

/** What a kept cut of each text holds: all of it. */
export const WHOLE_TEXTS_BYTES = 15 * 1024 * 1024;
/** What copies of the cuts may hold at most: the copies, and the collector's slack. */
export const COPIES_ONLY_BYTES = 2 * 1024 * 1024;

/** The first `count` space-separated fields of `text`, each cut from it: views of the text, as a page scan's values are. */
export function cutFields(text: string, count: number): string[] {
  const fields: string[] = [];
  for (let from = 0; fields.length < count; ) {
    const to = text.indexOf(' ', from);
    fields.push(text.slice(from, to));
    from = to + 1;
  }
  return fields;
}
