import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createReconcileQueue, type ReconcilePass, type ReconcileQueue, type ReconcileQueueOptions } from '../../../src/daemon/reconcile-queue.js';
import { silentLogger } from '../../../src/lib/logger.js';

interface Recorder {
  passes: (ReconcilePass & { startedAt: number })[];
  maxConcurrent: number;
}

/** A queue whose passes are recorded; `behave(n)` decides what pass n (0-based) does. */
function recordingQueue(
  behave: (n: number, pass: ReconcilePass) => Promise<void> = () => Promise.resolve(),
  options: Partial<ReconcileQueueOptions> = {},
): ReconcileQueue & Recorder {
  const recorder: Recorder = { passes: [], maxConcurrent: 0 };
  let running = 0;
  const queue = createReconcileQueue({
    log: silentLogger(),
    debounceMs: 20,
    maxWaitMs: 200,
    retryBaseMs: 30,
    random: () => 1,
    ...options,
    run: async (pass) => {
      const n = recorder.passes.length;
      recorder.passes.push({ ...pass, startedAt: performance.now() });
      recorder.maxConcurrent = Math.max(recorder.maxConcurrent, ++running);
      try {
        await behave(n, pass);
      } finally {
        running--;
      }
    },
  });
  return {
    ...queue,
    get passes() {
      return recorder.passes;
    },
    get maxConcurrent() {
      return recorder.maxConcurrent;
    },
  };
}

describe('the reconcile queue', () => {
  it('coalesces a burst of requests into one pass, each file once', async () => {
    const queue = recordingQueue();
    for (const file of ['b.yaml', 'a.yaml', 'b.yaml', 'a.yaml', 'c.yaml']) queue.requestFiles([file], 'file-changed');
    await queue.idle();
    expect(queue.passes).toHaveLength(1);
    expect(queue.passes[0]).toMatchObject({ full: false, files: ['a.yaml', 'b.yaml', 'c.yaml'], reasons: ['file-changed'] });
  });

  it('runs one pass for requests spread over less than the debounce each, and a full request makes it a full pass', async () => {
    const queue = recordingQueue(undefined, { debounceMs: 60, maxWaitMs: 5000 });
    queue.requestFiles(['a.yaml'], 'file-changed');
    await sleep(10);
    queue.requestFull('resync');
    await sleep(10);
    queue.requestFiles(['b.yaml'], 'file-changed');
    await queue.idle();
    expect(queue.passes).toHaveLength(1);
    expect(queue.passes[0]).toMatchObject({ full: true, files: ['a.yaml', 'b.yaml'] });
    expect(queue.passes[0]?.reasons.sort()).toEqual(['file-changed', 'resync']);
  });

  it('still runs a pass while a burst never goes quiet (bounded by maxWait)', async () => {
    const queue = recordingQueue(undefined, { debounceMs: 30, maxWaitMs: 60 });
    const burstEnds = performance.now() + 600;
    for (let i = 0; performance.now() < burstEnds; i++) {
      queue.requestFiles([`f${i}.yaml`], 'file-changed');
      await sleep(5);
    }
    const firstPass = queue.passes[0];
    expect(firstPass, 'a pass before the burst ended').toBeDefined();
    await queue.idle();
    const files = queue.passes.flatMap((p) => p.files);
    expect(new Set(files).size).toBe(files.length);
  });

  it('never runs two passes at once: requests during a pass wait for the next one', async () => {
    let release: () => void = () => undefined;
    const queue = recordingQueue((n) => (n === 0 ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve()));
    queue.requestFiles(['a.yaml'], 'file-changed');
    await waitUntil(() => queue.passes.length === 1);
    queue.requestFiles(['b.yaml'], 'file-changed');
    queue.requestFiles(['a.yaml'], 'file-changed');
    await sleep(60);
    expect(queue.passes).toHaveLength(1);
    release();
    await queue.idle();
    expect(queue.maxConcurrent).toBe(1);
    expect(queue.passes.map((p) => p.files)).toEqual([['a.yaml'], ['a.yaml', 'b.yaml']]);
  });

  it('puts the work of a failed pass back and retries it with growing backoff until it succeeds', async () => {
    const queue = recordingQueue((n) => (n < 2 ? Promise.reject(new Error('target down')) : Promise.resolve()));
    queue.requestFiles(['a.yaml'], 'file-changed');
    await waitUntil(() => queue.passes.length === 1);
    queue.requestFiles(['b.yaml'], 'file-changed');
    await queue.idle();
    expect(queue.passes).toHaveLength(3);
    expect(queue.passes[1]?.files).toEqual(['a.yaml', 'b.yaml']);
    expect(queue.passes[2]?.files).toEqual(['a.yaml', 'b.yaml']);
    const [first, second, third] = queue.passes.map((p) => p.startedAt) as [number, number, number];
    // random() = 1: backoff is exactly retryBase · 2^(failures-1); timers may fire late, never early.
    expect(second - first).toBeGreaterThanOrEqual(29);
    expect(third - second).toBeGreaterThanOrEqual(59);
  });

  it('does not let a stream of new requests postpone a pending retry', async () => {
    const queue = recordingQueue((n) => (n === 0 ? Promise.reject(new Error('target down')) : Promise.resolve()), { retryBaseMs: 100 });
    queue.requestFull('startup');
    await waitUntil(() => queue.passes.length === 1);
    const streamEnds = performance.now() + 1500;
    while (performance.now() < streamEnds && queue.passes.length < 2) {
      queue.requestFiles(['hot.yaml'], 'file-changed');
      await sleep(10);
    }
    expect(queue.passes.length, 'the retry ran while requests kept arriving').toBe(2);
    expect(queue.passes[1]).toMatchObject({ full: true });
    await queue.idle();
  });

  it('idle() resolves at once when there is nothing to do, and after pending work otherwise', async () => {
    const queue = recordingQueue(() => sleep(30));
    await queue.idle();
    queue.requestFull('startup');
    await queue.idle();
    expect(queue.passes).toHaveLength(1);
  });

  it('stop() lets the running pass finish, drops pending work and runs nothing more', async () => {
    let finished = false;
    const queue = recordingQueue(async (n) => {
      if (n === 0) {
        await sleep(80);
        finished = true;
      }
    });
    queue.requestFiles(['a.yaml'], 'file-changed');
    await waitUntil(() => queue.passes.length === 1);
    queue.requestFiles(['b.yaml'], 'file-changed');
    await queue.stop();
    expect(finished).toBe(true);
    queue.requestFull('resync');
    await sleep(60);
    expect(queue.passes).toHaveLength(1);
    await queue.idle();
  });

  it('stop() during a retry backoff cancels the retry', async () => {
    const queue = recordingQueue(() => Promise.reject(new Error('target down')), { retryBaseMs: 50 });
    queue.requestFull('startup');
    await waitUntil(() => queue.passes.length === 1);
    await queue.stop();
    await sleep(120);
    expect(queue.passes).toHaveLength(1);
  });
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await sleep(2);
  }
}
