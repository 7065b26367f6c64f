import type { ArchivedEvent } from './archived-event.js';
import type { RunState, StreamState } from './checkpoint.js';

/** The feed refuses timeframes over 2 years; 730 days is within that under any reading of "2 years". */
export const MAX_WINDOW_MS = 730 * 86_400_000;

export interface PlanOptions {
  /** How far back the first run goes (ms before now). */
  readonly sinceMs: number;
  /** Later runs start this far before the previous run's end, for events stored with a start a little in the past. */
  readonly lateArrivalMs: number;
  /** Open events that started longer ago than this are no longer re-polled (bounds the re-poll window). */
  readonly maxReachBackMs: number;
}

export interface PlannedRun {
  readonly run: RunState;
  /** Ids of open events dropped because they started before the reach-back bound. */
  readonly abandoned: readonly string[];
}

/**
 * The next run of a stream: the interrupted one if any, else `[from, now]` where `from` is the earliest of the
 * previous end (minus the late-arrival margin), the oldest still-open event (bounded), and a `--since` that reaches
 * before anything archived so far. Pure: the caller owns the clock.
 */
export function planRun(stream: StreamState, now: number, options: PlanOptions): PlannedRun {
  if (stream.run) return { run: stream.run, abandoned: [] };
  const sinceStart = Math.max(0, now - options.sinceMs);
  const bound = now - options.maxReachBackMs;
  const abandoned = Object.entries(stream.open).filter(([, start]) => start < bound).map(([id]) => id);
  let from = stream.watermark === null ? sinceStart : stream.watermark - options.lateArrivalMs;
  if (stream.horizon !== null && sinceStart < stream.horizon) from = Math.min(from, sinceStart);
  for (const start of Object.values(stream.open)) if (start >= bound) from = Math.min(from, start);
  const to = Math.max(now, stream.watermark ?? 0);
  from = Math.max(0, Math.min(from, to));
  return { run: { from, to, position: to }, abandoned };
}

/** The window to page next while `[run.from, run.position]` remains: at most MAX_WINDOW_MS, newest first. */
export function nextWindow(run: RunState): { from: number; to: number } | undefined {
  if (run.position <= run.from) return undefined;
  return { from: Math.max(run.from, run.position - MAX_WINDOW_MS), to: run.position };
}

/**
 * Tracks how far down a window the pages have reached. Pages come newest first, so once a page's oldest start is
 * `s`, every event of the window starting after `s` has been seen and a resumed run may restart at `s + 1` (ties at
 * `s` are fetched again and skipped by version key). Never below the window's own `from`: events older than that
 * appear in the window only because they ended inside it. If the feed ever breaks its order, the position stops
 * moving for the rest of the window, so a resume re-reads the whole window rather than skipping anything.
 */
export function createPositionTracker(window: { from: number; to: number }): {
  observe(events: readonly ArchivedEvent[]): number;
} {
  let lowest = Number.POSITIVE_INFINITY;
  let ordered = true;
  return {
    observe(events) {
      for (const { event } of events) {
        if (event.startTime > lowest) ordered = false;
        if (event.startTime < lowest) lowest = event.startTime;
      }
      if (!ordered || lowest === Number.POSITIVE_INFINITY) return window.to;
      return Math.min(window.to, Math.max(window.from, lowest + 1));
    },
  };
}

/** The open set after seeing a page: OPEN versions enter it, any other status leaves it. */
export function observeOpen(open: Map<string, number>, events: readonly ArchivedEvent[]): void {
  for (const { event } of events) {
    if (event.eventStatus === 'OPEN') open.set(event.id, event.startTime);
    else open.delete(event.id);
  }
}

/** The stream after a run covered `[run.from, run.to]` completely. */
export function completeRun(stream: StreamState, run: RunState): StreamState {
  return {
    ...stream,
    run: null,
    watermark: Math.max(run.to, stream.watermark ?? run.to),
    horizon: Math.min(run.from, stream.horizon ?? run.from),
  };
}
