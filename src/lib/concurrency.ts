/**
 * Runs `task` over `items` with at most `limit` in flight and returns results in input order.
 * Stops starting new items once `signal` aborts; items never started resolve to `undefined`.
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T, index: number) => Promise<R>,
  signal?: AbortSignal,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, () => worker());
  await Promise.all(workers);
  return results;
}

/** A task refused by concurrencyLimit: its places and its line were all taken. */
export class QueueFullError extends Error {}

/**
 * A gate that runs at most `limit` tasks at once; up to `maxWaiting` others wait, in the order they came, for one to
 * settle, and any more are refused (QueueFullError). For work whose memory grows with what it reads, asked for by
 * requests nobody bounds: an unbounded line kept a caller waiting for every read asked before it (75 s).
 */
export function concurrencyLimit(limit: number, maxWaiting = Number.POSITIVE_INFINITY): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A settling task hands its place straight to the next in line, so `running` counts places, not tasks.
    if (running < limit) running++;
    else if (waiting.length >= maxWaiting) throw new QueueFullError(`${limit} running and ${waiting.length} waiting`);
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
