import { PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A stretch of this process's time, in performance.now() milliseconds. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** How many milliseconds of `pauses` fall inside `span`. */
export function pausedWithin(span: Span, pauses: readonly Span[]): number {
  let total = 0;
  for (const pause of pauses) total += Math.max(0, Math.min(span.end, pause.end) - Math.max(span.start, pause.start));
  return total;
}

/** Timings with the client's own pauses taken out, and how much was taken out of how many. */
export interface CorrectedTimings {
  readonly ms: number[];
  readonly pausedRequests: number;
  readonly pausedMs: number;
}

/**
 * Times requests made from this process, less the time this process stood still in its own garbage collector
 * (perf_hooks `gc` entries) while one was under way: the server's answer waited in the socket meanwhile. Paging
 * the events feed, the client's parse of each page leaves garbage, and nearly every page of a pass's slowest 1 %
 * overlapped one of the client's collections (bench `events-page`, an instrumented build: 57–67 of 66–68), against
 * the bare server as much as against dashcd. Most of that cost was the helper threads a collection wakes, which took
 * the server's cores (run.ts starts the bench with one); the pauses alone were 0.1–0.2 ms of p99. The parse itself
 * is outside the timing, and this keeps what it costs later outside too. The server's own collections stay in.
 */
export class PauseCorrectedTimer {
  private readonly spans: Span[] = [];
  private readonly pauses: Span[] = [];
  private readonly observer = new PerformanceObserver((list) => this.keep(list.getEntries()));

  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  record(span: Span): void {
    this.spans.push(span);
  }

  /** Stops observing and returns every span's milliseconds less the client's pauses within it. */
  async finish(): Promise<CorrectedTimings> {
    // A collection's entry is queued for the turn after it ends: two turns later every one of the timed spans is in.
    await nextTurn();
    await nextTurn();
    this.keep(this.observer.takeRecords());
    this.observer.disconnect();
    let pausedRequests = 0;
    let pausedMs = 0;
    const ms = this.spans.map((span) => {
      const paused = pausedWithin(span, this.pauses);
      if (paused > 0) pausedRequests += 1;
      pausedMs += paused;
      return span.end - span.start - paused;
    });
    return { ms, pausedRequests, pausedMs };
  }

  private keep(entries: readonly PerformanceEntry[]): void {
    for (const { startTime, duration } of entries) this.pauses.push({ start: startTime, end: startTime + duration });
  }
}
