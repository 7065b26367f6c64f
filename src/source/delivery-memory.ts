/** How much the webhook remembers: enough for a day of pushes to a busy repository, bounded whatever comes. */
export const DELIVERY_MEMORY_LIMITS = { max: 1000, ttlMs: 24 * 60 * 60 * 1000 } as const;

/**
 * The push deliveries the webhook already acted on, so a replayed one (a captured request sent again, or a host's
 * redelivery) queues no work again. Bounded in count and age: the oldest are forgotten first, and a delivery older
 * than the age limit counts as new (a fetch it asks for is harmless; unbounded memory is not).
 */
export class DeliveryMemory {
  /** Key → when it was remembered (ms); Map order is insertion order, so the oldest come first. */
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly limits: { max: number; ttlMs: number } = DELIVERY_MEMORY_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * False when any of `keys` (a delivery's id, its signed body's digest) was remembered within the age limit;
   * otherwise remembers them all and answers true.
   */
  firstTime(keys: readonly string[]): boolean {
    const now = this.now();
    this.forgetOlderThan(now - this.limits.ttlMs);
    if (keys.some((key) => this.seen.has(key))) return false;
    for (const key of keys) this.seen.set(key, now);
    for (const key of this.seen.keys()) {
      if (this.seen.size <= this.limits.max) break;
      this.seen.delete(key);
    }
    return true;
  }

  private forgetOlderThan(cutoff: number): void {
    for (const [key, at] of this.seen) {
      if (at > cutoff) break;
      this.seen.delete(key);
    }
  }
}
