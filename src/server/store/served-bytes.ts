import { deflateOnHeap, inflateFromHeap, type HeapBytes } from '../../lib/heap-bytes.js';

/** The exact compact JSON a GET of one stored dashboard version sends. */
export interface ServedBytes {
  /** Shared with the cache while hot: read them, never change them. */
  bytes(): Buffer;
  /** The version was replaced or removed: it stops counting against the budget, and stays readable. */
  retire(): void;
}

/**
 * Raw bytes kept per store by default (the daemon's embedded API), most recently used first; the rest are held
 * deflated (10,000 dashboards held raw would cost ~190 MB, deflated about a sixth). Small on purpose: the raw bytes
 * are malloc'd Buffers, and the ones a pass leaves hot were allocated in the middle of its short-lived buffers (each
 * read of a cold dashboard inflates a new one and keeps it), where they pin glibc's heap at its high-water mark, which
 * glibc gives back only from the top. With 32 MB the daemon's main heap stayed at ~150 MB after a pass over 10,000
 * dashboards, with 2 MB at 86–115 MB (bench `daemon-scale`). The daemon's GETs lose little: its own plans read every
 * dashboard once per pass, a cycle an LRU smaller than the set misses anyway, and inflating one costs ~20 µs.
 */
export const DEFAULT_HOT_BYTES = 2 * 1024 * 1024;

/**
 * `dashcd serve`'s budget (its --cache-mb). A plan reads every dashboard once per run, a cycle that an LRU smaller than
 * the whole set misses on every read: at 10,000 dashboards of ~17 KB the server inflated each one, and the garbage
 * that made cost a fifth of the plan's wall time. A server process can afford to hold that many (~200 MB); the
 * daemon's embedded API, whose memory is the daemon's, keeps the default.
 */
export const SERVE_HOT_BYTES = 256 * 1024 * 1024;

class Entry implements ServedBytes {
  /**
   * At least one is set: raw while hot (deflated too if it was cold before), deflated only while cold. Raw as a
   * Buffer, which GET writes without a copy (as a string it cost a fifth of GET's throughput, bench `get`); deflated
   * on V8's heap (heap-bytes.ts), as every entry of a large store is kept for long.
   */
  raw: Buffer | undefined;
  deflated: HeapBytes | undefined;
  /** Replaced or removed: still readable by whoever holds it, never kept hot again. */
  retired = false;
  /** Neighbours in the cache's recency list while hot (raw set); both undefined while cold. */
  older: Entry | undefined;
  newer: Entry | undefined;

  constructor(
    private readonly cache: ServedBytesCache,
    raw: Buffer,
  ) {
    this.raw = raw;
  }

  bytes(): Buffer {
    return this.cache.read(this);
  }

  retire(): void {
    this.cache.retire(this);
  }
}

/**
 * Keeps a store's GET bytes within a memory budget without making GET wait on the disk: past the budget the least
 * recently written or read dashboards are deflated in place (a cold GET inflates, ~20 µs for 20 KB), and nothing
 * is ever lost or re-read from the data dir, whose files may lag behind the journal.
 */
export class ServedBytesCache {
  /**
   * The hot entries, least recently used first, as a list threaded through the entries themselves: a read moves its
   * entry to the end with a few pointer writes, where a Set's delete and re-add hashed it twice and left a tombstone
   * (a twentieth of a GET's CPU, bench `get`).
   */
  private oldest: Entry | undefined;
  private newest: Entry | undefined;
  private hotTotal = 0;

  constructor(private readonly budget = DEFAULT_HOT_BYTES) {}

  private inflations = 0;

  /** Bytes currently held raw (the budget, or one entry larger than it). */
  get hotBytes(): number {
    return this.hotTotal;
  }

  /** Reads that found their entry cold and inflated it. */
  get coldReads(): number {
    return this.inflations;
  }

  /** A new version's bytes (the cache's from now on), hot until other reads and writes push them out. */
  admit(raw: Buffer): ServedBytes {
    const entry = new Entry(this, raw);
    this.warm(entry, raw);
    return entry;
  }

  /** @internal see {@link ServedBytes.retire} */
  retire(entry: Entry): void {
    if (entry.retired) return;
    entry.retired = true;
    if (entry.raw) this.unlink(entry);
  }

  /** @internal the entry's bytes; a cold entry becomes hot unless it was retired. */
  read(entry: Entry): Buffer {
    const raw = entry.raw;
    if (raw) {
      if (!entry.retired && entry !== this.newest) {
        this.unlink(entry);
        this.append(entry, raw);
      }
      return raw;
    }
    this.inflations += 1;
    const inflated = inflateFromHeap(entry.deflated as HeapBytes);
    if (!entry.retired) this.warm(entry, inflated);
    return inflated;
  }

  private warm(entry: Entry, raw: Buffer): void {
    this.append(entry, raw);
    while (this.hotTotal > this.budget && this.oldest !== entry) this.cool(this.oldest as Entry);
  }

  private cool(entry: Entry): void {
    const raw = entry.raw as Buffer;
    entry.deflated ??= deflateOnHeap(raw);
    this.unlink(entry);
  }

  /** Makes `entry` hot and the most recently used. */
  private append(entry: Entry, raw: Buffer): void {
    entry.raw = raw;
    entry.older = this.newest;
    entry.newer = undefined;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
    this.hotTotal += raw.length;
  }

  /**
   * Takes a hot `entry` out of the list; a retired one keeps its raw bytes for whoever still holds it, an entry
   * cooled by cool() has them deflated.
   */
  private unlink(entry: Entry): void {
    const { older, newer } = entry;
    if (older) older.newer = newer;
    else this.oldest = newer;
    if (newer) newer.older = older;
    else this.newest = older;
    entry.older = undefined;
    entry.newer = undefined;
    this.hotTotal -= (entry.raw as Buffer).length;
    if (!entry.retired) entry.raw = undefined;
  }
}
