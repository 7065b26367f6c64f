/**
 * Applies each page's effects (open set, resume position, counters) in the order the pages were staged, and each
 * only once its own data is durable, so whatever state a checkpoint captures covers fsynced lines only. Up to
 * `limit` pages may be in flight: their fsyncs overlap with preparing the next pages.
 */
export interface CommitQueue {
  /** Queues `apply` behind `durable`; waits while more than `limit` pages are in flight. Rejects once any failed. */
  add(durable: Promise<void>, apply: () => void): Promise<void>;
  /** Waits for every queued page; rejects with the first failure, after which the queue starts afresh. */
  drain(): Promise<void>;
}

export function createCommitQueue(limit: number): CommitQueue {
  let chain: Promise<void> = Promise.resolve();
  let inFlight: Promise<void>[] = [];
  return {
    async add(durable, apply) {
      // A failure propagates down the chain: no page after a failed one moves the state.
      chain = chain.then(() => durable).then(apply);
      chain.catch(() => undefined);
      inFlight.push(chain);
      while (inFlight.length > limit) await inFlight.shift();
    },
    async drain() {
      const last = chain;
      inFlight = [];
      try {
        await last;
      } finally {
        if (chain === last) chain = Promise.resolve();
      }
    },
  };
}
