import { describe, expect, it } from 'vitest';
import { releaseMemory } from '../../src/daemon/release-memory.js';

describe('releaseMemory', () => {
  it('collects garbage the heap still holds, at once and again on a second call', () => {
    for (let round = 0; round < 2; round++) {
      // ~48 MB of arrays dropped as soon as made: live data gone, but nothing has collected it yet.
      let garbage: number[][] | undefined = Array.from({ length: 48 }, () => new Array<number>(131_072).fill(round + 0.5));
      expect(garbage).toHaveLength(48);
      garbage = undefined;
      const before = process.memoryUsage().heapUsed;
      releaseMemory();
      expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(32 * 1024 * 1024);
    }
  });
});
