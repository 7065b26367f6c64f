/**
 * Response bodies carved one after another out of large buffers, each with room after it for the scratch of the reads
 * that fill it. A page's texts are read into that room and moved into place within one buffer (no view allocated per
 * text), and a page allocates no buffer of its own: one slab serves many pages, and is freed once the last body cut
 * from it has been sent. A body, once taken, is never written again; the room after it is the next body's.
 */
export class BodySlabs {
  private slab: Buffer | undefined;
  private next = 0;

  constructor(private readonly slabBytes: number) {}

  /** A place for `size` bytes followed by `room` spare ones: the slab, and where the body starts in it. */
  take(size: number, room: number): { readonly slab: Buffer; readonly at: number } {
    if (this.slab === undefined || this.next + size + room > this.slab.length) {
      this.slab = Buffer.allocUnsafe(Math.max(this.slabBytes, size + room));
      this.next = 0;
    }
    const at = this.next;
    this.next += size;
    return { slab: this.slab, at };
  }
}
