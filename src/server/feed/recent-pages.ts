import type { LogSpan } from './span-reader.js';

interface Entry {
  readonly offsets: Float64Array;
  /** Where the page's block lies in the arena. */
  readonly start: number;
  readonly size: number;
}

/**
 * The texts of the pages read last, keyed by where their events lie in the log. The log is only ever appended to, so
 * the bytes at an offset never change and a page is never stale: an event replaced since has a new offset, and a page
 * holding it misses.
 *
 * A page is kept as the block a response body holds (its texts in the order asked, one separator byte apart), so a
 * hit is one copy into the next body. The blocks are copied into one arena allocated once, used as a ring (the oldest
 * pages give way). Keeping each page's own buffer instead let buffers outlive the young generation: outside the JS
 * heap, only a full collection frees them, and a full pass of pages then ran one every few hundred ms (1.5–24 ms each).
 */
export class RecentPages {
  private arena: Buffer | undefined;
  /** Insertion order is arena order, oldest first. */
  private readonly pages = new Map<string, Entry>();
  private next = 0;

  constructor(private readonly capacity: number) {}

  /** Copies the block of exactly these spans into `target` at `at`, if a page of them is kept; says whether it did. */
  copyInto(spans: readonly LogSpan[], target: Buffer, at: number): boolean {
    const key = keyOf(spans);
    const entry = key === undefined ? undefined : this.pages.get(key);
    // The block's size too: a kept block shorter than the one asked for would leave unwritten bytes in the body.
    if (!entry || !this.arena || !sameOffsets(entry.offsets, spans) || entry.size !== blockSize(spans)) return false;
    this.arena.copy(target, at, entry.start, entry.start + entry.size);
    return true;
  }

  /** Keeps a page's block (its texts read for `spans`, in their order), overwriting the oldest pages where it lands. */
  set(spans: readonly LogSpan[], block: Buffer): void {
    const key = keyOf(spans);
    const size = block.length;
    if (key === undefined || size === 0 || size > this.capacity) return;
    this.pages.delete(key);
    if (this.next + size > this.capacity) this.next = 0;
    const start = this.next;
    for (const [oldKey, old] of this.pages) if (old.start < start + size && start < old.start + old.size) this.pages.delete(oldKey);
    this.arena ??= Buffer.allocUnsafe(this.capacity);
    this.arena.set(block, start);
    // A plain loop: Float64Array.from's callback costs ~0.2 µs a call, 150 a page.
    const offsets = new Float64Array(spans.length);
    for (let i = 0; i < spans.length; i++) offsets[i] = (spans[i] as LogSpan).offset;
    this.pages.set(key, { offsets, start, size });
    this.next = start + size;
  }
}

/** Count and both ends: cheap, and rarely shared by two pages (copyInto() compares every offset anyway). */
function keyOf(spans: readonly LogSpan[]): string | undefined {
  const first = spans[0];
  const last = spans[spans.length - 1];
  return first && last ? `${spans.length}:${first.offset}:${last.offset}` : undefined;
}

/** The texts of `spans` one separator byte apart, as a response body holds them. */
function blockSize(spans: readonly LogSpan[]): number {
  let size = spans.length - 1;
  for (const span of spans) size += span.length;
  return size;
}

function sameOffsets(offsets: Float64Array, spans: readonly LogSpan[]): boolean {
  if (offsets.length !== spans.length) return false;
  for (let i = 0; i < spans.length; i++) if (offsets[i] !== (spans[i] as LogSpan).offset) return false;
  return true;
}
