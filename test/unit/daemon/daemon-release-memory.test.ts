import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { releaseMemory, releaseMemoryAfter } from '../../../src/daemon/release-memory.js';

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

describe('releaseMemoryAfter', () => {
  const deferred = (): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } => {
    let resolve: () => void = () => undefined;
    let reject: (error: Error) => void = () => undefined;
    const promise = new Promise<void>((ok, fail) => ((resolve = ok), (reject = fail)));
    return { promise, resolve, reject };
  };

  it('collects only once the files are written, not before', async () => {
    const written = deferred();
    let collections = 0;
    const released = releaseMemoryAfter(written.promise, () => (collections += 1));
    await new Promise((tick) => setImmediate(tick));
    expect(collections).toBe(0);
    written.resolve();
    await released;
    expect(collections).toBe(1);
  });

  it('collects when writing the files failed too', async () => {
    const written = deferred();
    let collections = 0;
    const released = releaseMemoryAfter(written.promise, () => (collections += 1));
    written.reject(new Error('disk full'));
    await released;
    expect(collections).toBe(1);
  });
});

describe('releaseMemory compaction', () => {
  const oldSpace = (): { size: number; used: number } => {
    const space = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
    return { size: space?.space_size ?? 0, used: space?.space_used_size ?? 0 };
  };

  it('moves survivors out of the pages garbage left sparse, so the old space shrinks to about what is live', () => {
    // ~90 MB of strings promoted to the old space, then two in three dropped: every page keeps a third of its bytes.
    let all: string[] | undefined = Array.from({ length: 150_000 }, (_, i) => `${'y'.repeat(600)}${i}`);
    releaseMemory();
    const kept = all.filter((_, i) => i % 3 === 0);
    all = undefined;
    releaseMemory();
    const { size, used } = oldSpace();
    expect(kept).toHaveLength(50_000);
    // Compacted: ~1 MB more than is used; without compaction the sparse pages stay, ~25 MB more.
    expect(size - used).toBeLessThan(8 * 1024 * 1024);
  });
});
