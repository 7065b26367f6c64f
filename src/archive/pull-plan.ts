import { detachedText } from '../lib/detached.js';
import { MAX_EVENTS_TIMEFRAME_MS } from '../schema/events.js';
import type { ArchivedEvent, ArchivedEventView } from './archived-event.js';
import type { RunState, StreamState } from './checkpoint.js';

/**
 * Where the first run starts: a span back from each run's `now` (`--since 7d`), or an instant (`--since 2024-05-01`),
 * which a span computed at the command's start and applied at the run's later `now` moved a few milliseconds on:
 * events of those first milliseconds were never archived.
 */
export type Since = { readonly back: number } | { readonly from: number };

/** The instant a `since` names at `now`. */
export function sinceStart(since: Since, now: number): number {
  return 'from' in since ? since.from : Math.max(0, now - since.back);
}

export interface PlanOptions {
  /** Where the first run starts. */
  readonly since: Since;
  /** Later runs start this far before the previous run's end, for events stored with a start a little in the past. */
  readonly lateArrivalMs: number;
  /** A run's window reaches back to open events that started at most this long ago; older ones get spot checks. */
  readonly maxReachBackMs: number;
  /** Open events that started longer ago than this are given up on (their closing is not archived). */
  readonly openRetentionMs: number;
}

/** An event last seen OPEN: where to look for it again, and the type a `--type` stream matches it on. */
export interface OpenEvent {
  readonly startTime: number;
  readonly endTime?: number | undefined;
  readonly entityId?: string | undefined;
  readonly eventType?: string | undefined;
}

/**
 * The next run of a stream: the interrupted one if any, else `[from, now]` where `from` is the earliest of the
 * previous end (minus the late-arrival margin), the oldest open event within the reach-back bound, and a `--since`
 * that reaches before anything archived so far. Pure: the caller owns the clock.
 */
export function planRun(stream: StreamState, open: ReadonlyMap<string, OpenEvent>, now: number, options: PlanOptions): RunState {
  if (stream.run) return stream.run;
  const start = sinceStart(options.since, now);
  const reachBound = now - options.maxReachBackMs;
  let from = stream.watermark === null ? start : stream.watermark - options.lateArrivalMs;
  if (stream.horizon !== null && start < stream.horizon) from = Math.min(from, start);
  for (const { startTime } of open.values()) if (startTime >= reachBound) from = Math.min(from, startTime);
  const to = Math.max(now, stream.watermark ?? 0);
  from = Math.max(0, Math.min(from, to));
  return { from, to, position: to };
}

/** Open events of one entity starting within a day of each other share one spot-check window. */
const SPOT_SPAN_MS = 86_400_000;

export interface SpotCheck {
  readonly from: number;
  readonly to: number;
  readonly entityId: string | undefined;
}

/**
 * Narrow windows (one entity, a day at most) that find again the open events a run's window did not reach
 * (those starting before `coveredFrom`), instead of re-reading everything since the oldest of them.
 */
export function planSpotChecks(open: ReadonlyMap<string, OpenEvent>, coveredFrom: number): SpotCheck[] {
  const stale = [...open.values()]
    .filter((event) => event.startTime < coveredFrom)
    .sort((a, b) => (a.entityId ?? '').localeCompare(b.entityId ?? '') || a.startTime - b.startTime);
  const windows: SpotCheck[] = [];
  for (const event of stale) {
    const last = windows[windows.length - 1];
    // Without an entity to filter on, a shared window could hold a day of everything: each event gets its own.
    if (last && event.entityId !== undefined && last.entityId === event.entityId && event.startTime - last.from <= SPOT_SPAN_MS) {
      windows[windows.length - 1] = { ...last, to: event.startTime + 1 };
    } else windows.push({ from: event.startTime, to: event.startTime + 1, entityId: event.entityId });
  }
  return windows;
}

/** The window to page next while `[run.from, run.position]` remains: at most MAX_EVENTS_TIMEFRAME_MS, newest first. */
export function nextWindow(run: RunState): { from: number; to: number } | undefined {
  if (run.position <= run.from) return undefined;
  return { from: Math.max(run.from, run.position - MAX_EVENTS_TIMEFRAME_MS), to: run.position };
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

/**
 * The open set after archiving a version (versions in archive order): OPEN enters it, any other status leaves it.
 * What it keeps is copied: the event's strings are cut from its page's text, which they would otherwise keep alive
 * for as long as the day stays loaded (a backfill at 40 % open held ~50–90 MB of page texts at its peak).
 */
export function observeOpen(open: Map<string, OpenEvent>, event: ArchivedEventView): void {
  if (event.eventStatus === 'OPEN') {
    open.set(detachedText(event.id), { startTime: event.startTime, endTime: event.endTime, entityId: detachedOptional(event.entityId), eventType: detachedOptional(event.eventType) });
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: speed-only shortcut; deleting from an empty map changes nothing.
  else if (open.size > 0) open.delete(event.id);
}

const detachedOptional = (text: string | undefined): string | undefined => (text === undefined ? undefined : detachedText(text));

/**
 * What a spot check writes: only changed versions of events it was looking for. The rest of its window was archived
 * when first seen, and skipping it spares loading old partitions' version keys on every poll.
 */
export function changedOpenEvents(open: ReadonlyMap<string, OpenEvent>, events: readonly ArchivedEvent[]): ArchivedEvent[] {
  return events.filter(({ event }) => {
    const known = open.get(event.id);
    return known !== undefined && (event.eventStatus !== 'OPEN' || event.endTime !== known.endTime);
  });
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
