/** A body's place in a slab, and how to say its bytes are no longer needed. */
export interface SlabCut {
  readonly slab: Buffer;
  /** Where the body starts in `slab`. */
  readonly at: number;
  /**
   * The body has been sent or copied: its bytes may be written over. Once is enough; more calls change nothing. A body
   * never given back only keeps its slab from being used again (the collector frees it with its last view).
   */
  readonly giveBack: () => void;
}

interface Slab {
  readonly buffer: Buffer;
  /** Bodies cut from it and not given back yet. */
  lent: number;
  /** Bodies are still being cut from it. */
  filling: boolean;
}

/**
 * Response bodies carved one after another out of large buffers, each with room after it for the scratch of the reads
 * that fill it. A page's texts are read into that room and moved into place within one buffer (no view allocated per
 * text), and a page allocates no buffer of its own: one slab serves many pages.
 *
 * A slab of the usual size whose bodies have all been given back is kept (two at most) and cut again. A buffer is
 * memory outside the JS heap, which V8 counts towards its next full collection: a new 1 MB slab every few pages made a
 * pass of entity pages run a mark-compact every ~170 pages (59 in 10,000), each paid in incremental steps by the
 * requests around it — the pages' p99.
 */
export class BodySlabs {
  private current: Slab | undefined;
  private next = 0;
  private readonly spare: Buffer[] = [];

  constructor(
    private readonly slabBytes: number,
    /**
     * Given-back slabs kept for cutting again; more are left to the collector. One serves a reader at a time (the slab
     * a full one gives way to is free by then); the second, a reader whose last page is still leaving. Each is memory
     * held for good by every environment's store.
     */
    private readonly spareSlabs = 2,
  ) {}

  /** A place for `size` bytes followed by `room` spare ones. */
  take(size: number, room: number): SlabCut {
    if (this.current === undefined || this.next + size + room > this.current.buffer.length) this.startSlab(size + room);
    const slab = this.current as Slab;
    const at = this.next;
    this.next += size;
    slab.lent += 1;
    let given = false;
    const giveBack = (): void => {
      if (given) return;
      given = true;
      slab.lent -= 1;
      this.keepIfFree(slab);
    };
    return { slab: slab.buffer, at, giveBack };
  }

  private startSlab(bytes: number): void {
    const done = this.current;
    if (done) {
      done.filling = false;
      this.keepIfFree(done);
    }
    const buffer = bytes <= this.slabBytes ? (this.spare.pop() ?? Buffer.allocUnsafe(this.slabBytes)) : Buffer.allocUnsafe(bytes);
    this.current = { buffer, lent: 0, filling: true };
    this.next = 0;
  }

  /** A slab nothing is cut from any more and no body holds goes back to the spares, if it is of the usual size. */
  private keepIfFree(slab: Slab): void {
    if (slab.filling || slab.lent > 0 || slab.buffer.length !== this.slabBytes || this.spare.length >= this.spareSlabs) return;
    this.spare.push(slab.buffer);
  }
}
