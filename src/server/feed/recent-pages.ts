import type { LogSpan } from './span-reader.js';

interface Entry {
  readonly offsets: Float64Array;
  readonly texts: Buffer[];
  readonly bytes: number;
}

/**
 * The texts of the pages read last, keyed by where their events lie in the log, least recently used dropped first
 * past a byte budget. The log is only ever appended to, so the bytes at an offset never change and an entry is never
 * stale: an event replaced since has a new offset, and a page holding it misses.
 */
export class RecentPages {
  private readonly pages = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  /** The texts of exactly these spans, if a page of them was kept; a hit becomes the most recently used. */
  get(spans: readonly LogSpan[]): Buffer[] | undefined {
    const key = keyOf(spans);
    const entry = key === undefined ? undefined : this.pages.get(key);
    if (key === undefined || !entry || !sameOffsets(entry.offsets, spans)) return undefined;
    this.pages.delete(key);
    this.pages.set(key, entry);
    return entry.texts;
  }

  /** Keeps a page's texts (read for `spans`, in their order), dropping the oldest pages past the budget. */
  set(spans: readonly LogSpan[], texts: Buffer[]): void {
    const key = keyOf(spans);
    if (key === undefined) return;
    this.drop(key);
    const bytes = spans.reduce((sum, span) => sum + span.length, 0);
    if (bytes > this.budget) return;
    this.pages.set(key, { offsets: Float64Array.from(spans, (span) => span.offset), texts, bytes });
    this.bytes += bytes;
    for (const oldest of this.pages.keys()) {
      if (this.bytes <= this.budget) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const entry = this.pages.get(key);
    if (!entry) return;
    this.pages.delete(key);
    this.bytes -= entry.bytes;
  }
}

/** Count and both ends: cheap, and rarely shared by two pages (get() compares every offset anyway). */
function keyOf(spans: readonly LogSpan[]): string | undefined {
  const first = spans[0];
  const last = spans[spans.length - 1];
  return first && last ? `${spans.length}:${first.offset}:${last.offset}` : undefined;
}

function sameOffsets(offsets: Float64Array, spans: readonly LogSpan[]): boolean {
  if (offsets.length !== spans.length) return false;
  for (let i = 0; i < spans.length; i++) if (offsets[i] !== (spans[i] as LogSpan).offset) return false;
  return true;
}
