import type { EventColumns } from './event-columns.js';
import type { SlotList } from './slot-list.js';

export const BLOCK_SHIFT = 5;
export const BLOCK_SIZE = 1 << BLOCK_SHIFT;

/**
 * The latest end time in each block of 32 consecutive positions of the global order. Events that started before a
 * query's `from` match only by their end time; a block whose maximum end is before `from` holds none of them and
 * is skipped whole, so that part of a query costs one comparison per 32 events instead of one per event.
 */
export class EndBlocks {
  private max = new Float64Array(0);

  constructor(
    private readonly columns: EventColumns,
    private readonly order: SlotList,
  ) {}

  maxEnd(block: number): number {
    return this.max[block] ?? Number.NEGATIVE_INFINITY;
  }

  /** Recomputes every block from the one holding `position` on (positions after an insert shift by one). */
  refreshFrom(position: number): void {
    const blocks = (this.order.length + BLOCK_SIZE - 1) >>> BLOCK_SHIFT;
    if (this.max.length < blocks) {
      const next = new Float64Array(Math.max(blocks, this.max.length * 2, 64));
      next.set(this.max);
      this.max = next;
    }
    for (let block = position >>> BLOCK_SHIFT; block < blocks; block++) this.max[block] = this.compute(block);
  }

  /** Recomputes the one block holding `position` (an end time changed in place). */
  refreshAt(position: number): void {
    const block = position >>> BLOCK_SHIFT;
    if (block < this.max.length) this.max[block] = this.compute(block);
    else this.refreshFrom(position);
  }

  private compute(block: number): number {
    const { end } = this.columns;
    const items = this.order.items;
    const first = block << BLOCK_SHIFT;
    const last = Math.min(first + BLOCK_SIZE, this.order.length);
    let max = Number.NEGATIVE_INFINITY;
    for (let p = first; p < last; p++) {
      const value = end[items[p] ?? 0] ?? Number.NEGATIVE_INFINITY;
      if (value > max) max = value;
    }
    return max;
  }
}
