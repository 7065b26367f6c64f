/** Milliseconds elapsed since some fixed point; only differences between two readings mean anything. */
export type ElapsedMs = () => number;

/**
 * A monotonic clock: it never goes back. The wall clock does (an NTP step, an operator fixing the time), and an
 * interval measured on it then looks negative until the wall clock catches up.
 */
export const monotonicMs: ElapsedMs = () => performance.now();

/**
 * When a file held in memory is due to be checked again: the first check always, then at most once per interval of
 * elapsed monotonic time. On the wall clock, setting it back by an hour would hold off every check for that hour, and
 * a token revoked in the file would stay valid as long.
 */
export class ReloadSchedule {
  private lastCheck = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly intervalMs: number,
    private readonly elapsedMs: ElapsedMs = monotonicMs,
  ) {}

  /** Whether a check is due now; asking does not count as one. */
  due(): boolean {
    return this.elapsedMs() - this.lastCheck >= this.intervalMs;
  }

  /** Counts a check made now: the next is due an interval from now. */
  checked(): void {
    this.lastCheck = this.elapsedMs();
  }
}
