import type { LogSpan } from './span-reader.js';

interface Entry {
  readonly offsets: Float64Array;
  /** Where the page's texts lie in the arena, one after another in the order they were asked for. */
  readonly start: number;
  readonly size: number;
}

/**
 * The texts of the pages read last, keyed by where their events lie in the log. The log is only ever appended to, so
 * the bytes at an offset never change and a page is never stale: an event replaced since has a new offset, and a page
 * holding it misses.
 *
 * The texts are copied into one arena allocated once, used as a ring (the oldest pages give way), and copied out
 * again on a hit. Keeping each page's own buffer instead let buffers outlive the young generation: outside the JS
 * heap, only a full collection frees them, and a full pass of pages then ran one every few hundred ms (1.5–24 ms each).
 */
export class RecentPages {
  private arena: Buffer | undefined;
  /** Insertion order is arena order, oldest first. */
  private readonly pages = new Map<string, Entry>();
  private next = 0;

  constructor(private readonly capacity: number) {}

  /** The texts of exactly these spans (a copy of their own), if a page of them is kept. */
  get(spans: readonly LogSpan[]): Buffer[] | undefined {
    const entry = this.entryOf(spans);
    if (!entry || !this.arena) return undefined;
    const packed = Buffer.allocUnsafe(entry.size);
    this.arena.copy(packed, 0, entry.start, entry.start + entry.size);
    let at = 0;
    return spans.map((span) => packed.subarray(at, (at += span.length)));
  }

  private entryOf(spans: readonly LogSpan[]): Entry | undefined {
    const key = keyOf(spans);
    const entry = key === undefined ? undefined : this.pages.get(key);
    return entry && sameOffsets(entry.offsets, spans) ? entry : undefined;
  }

  /** Keeps a page's texts (read for `spans`, in their order), overwriting the oldest pages where it lands. */
  set(spans: readonly LogSpan[], texts: readonly Buffer[]): void {
    const key = keyOf(spans);
    const size = texts.reduce((sum, text) => sum + text.length, 0);
    if (key === undefined || size === 0 || size > this.capacity) return;
    this.pages.delete(key);
    if (this.next + size > this.capacity) this.next = 0;
    const start = this.next;
    for (const [oldKey, old] of this.pages) if (old.start < start + size && start < old.start + old.size) this.pages.delete(oldKey);
    this.arena ??= Buffer.allocUnsafe(this.capacity);
    // TypedArray set and a plain loop: Buffer.copy and Float64Array.from's callback cost ~0.2 µs a call, 150 a page.
    const offsets = new Float64Array(spans.length);
    let at = start;
    texts.forEach((text, i) => {
      this.arena?.set(text, at);
      at += text.length;
      offsets[i] = (spans[i] as LogSpan).offset;
    });
    this.pages.set(key, { offsets, start, size });
    this.next = at;
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
