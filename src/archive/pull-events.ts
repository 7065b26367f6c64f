import { systemClock, type Clock } from '../lib/clock.js';
import type { FsLayer } from '../lib/fs-layer.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import type { FetchPage } from './page-window.js';
import type { Since } from './pull-plan.js';
import { openPullSession, type PullProgress, type PullSession } from './pull-session.js';

export type { FetchPage } from './page-window.js';
export type { PullProgress } from './pull-session.js';

export interface PullEventsOptions {
  readonly fetchPage: FetchPage;
  readonly archiveDir: string;
  readonly env: string;
  /** Where the first run of this archive starts; later runs continue from the checkpoint. */
  readonly since: Since;
  readonly eventType?: string | undefined;
  readonly entityId?: string | undefined;
  readonly clock?: Clock;
  readonly log?: Logger;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: PullProgress) => void) | undefined;
  readonly fs?: FsLayer | undefined;
  /** Later runs start this much before the previous run's end (events stored with a start in the recent past). */
  readonly lateArrivalMs?: number;
  /** A run's window reaches back to open events that started at most this long ago; older ones get narrow spot checks. */
  readonly maxReachBackMs?: number;
  /** Open events are looked for until they close, but not once they started longer ago than this. */
  readonly openRetentionMs?: number;
  /** Checkpoint at most this often while paging (the data is fsynced per page regardless). */
  readonly checkpointEveryMs?: number;
}

export interface PullSummary {
  readonly runs: number;
  readonly pages: number;
  readonly events: number;
  readonly written: number;
  readonly duplicates: number;
  readonly openEvents: number;
  readonly watermark: number | null;
  readonly durationMs: number;
  readonly eventsPerSecond: number;
}

const MINUTE = 60_000;
const DAY = 86_400_000;

/**
 * Pulls the feed into `<archiveDir>/<env>/date=YYYY-MM-DD/events.jsonl`: every event version once, ever, each line
 * the event exactly as the feed returned it. Resumes an interrupted run from the checkpoint. Rejects (with the
 * checkpoint intact) when the feed fails or `signal` aborts.
 */
export async function pullEvents(options: PullEventsOptions): Promise<PullSummary> {
  const started = performance.now();
  const session = await openSession(options, Number.POSITIVE_INFINITY);
  try {
    await session.pull();
    return summarize(session, started);
  } finally {
    await session.close();
  }
}

/**
 * Pulls, then again every `intervalMs`, until `signal` aborts; then resolves with the totals. A failed pass is
 * logged and retried with backoff (the loop survives a feed outage); `onProgress` reports position and lag.
 */
export interface FollowEventsOptions extends PullEventsOptions {
  readonly intervalMs: number;
  /** After each poll (one pull run, including its retries), whether it finished or failed. */
  readonly onPoll?: ((poll: { readonly durationMs: number; readonly ok: boolean }) => void) | undefined;
}

export async function followEvents(options: FollowEventsOptions): Promise<PullSummary> {
  const started = performance.now();
  const { signal, clock = systemClock } = options;
  const log = options.log ?? silentLogger();
  // Each poll looks for at most this many old open events' windows, so a backlog cannot slow every poll.
  const session = await openSession(options, 50);
  try {
    let failures = 0;
    while (!signal.aborted) {
      // The injected clock, so a test's fake time and the poll duration histogram agree (the system clock is wall
      // time, which can step back: hence the floor at 0).
      const pollStarted = clock.now();
      try {
        await session.pull();
        failures = 0;
      } catch (error) {
        if (signal.aborted) break;
        failures++;
        log.warn({ err: error, failures }, 'events pull failed; retrying');
      }
      options.onPoll?.({ durationMs: Math.max(0, clock.now() - pollStarted), ok: failures === 0 });
      const wait = options.intervalMs * Math.min(2 ** failures, 8);
      try {
        await clock.sleep(wait, signal);
      } catch {
        break;
      }
    }
    return summarize(session, started);
  } finally {
    await session.close();
  }
}

function openSession(options: PullEventsOptions, maxSpotChecks: number): Promise<PullSession> {
  return openPullSession({
    fetchPage: options.fetchPage,
    archiveDir: options.archiveDir,
    env: options.env,
    eventType: options.eventType,
    entityId: options.entityId,
    clock: options.clock ?? systemClock,
    log: options.log ?? silentLogger(),
    signal: options.signal,
    onProgress: options.onProgress,
    fs: options.fs,
    checkpointEveryMs: options.checkpointEveryMs ?? 250,
    maxSpotChecks,
    plan: {
      since: options.since,
      lateArrivalMs: options.lateArrivalMs ?? 15 * MINUTE,
      maxReachBackMs: options.maxReachBackMs ?? DAY,
      openRetentionMs: options.openRetentionMs ?? 90 * DAY,
    },
  });
}

function summarize(session: PullSession, started: number): PullSummary {
  const durationMs = Math.round(performance.now() - started);
  const progress = session.progress('idle');
  return {
    runs: progress.runs,
    pages: progress.pages,
    events: progress.events,
    written: progress.written,
    duplicates: progress.duplicates,
    openEvents: progress.openEvents,
    watermark: progress.watermark,
    durationMs,
    eventsPerSecond: durationMs > 0 ? Math.round((progress.events * 1000) / durationMs) : 0,
  };
}
