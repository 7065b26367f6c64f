import { join } from 'node:path';
import type { Clock } from '../lib/clock.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { mkdirDurable } from '../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import type { Logger } from '../lib/logger.js';
import { acquireArchiveLock } from './archive-lock.js';
import { createCommitQueue } from './commit-queue.js';
import { utcDay } from './archived-event.js';
import { readCheckpoint, streamKey, writeCheckpoint, emptyStream, type Checkpoint, type RunState, type StreamState } from './checkpoint.js';
import type { FeedPage, WindowQuery } from './feed-page.js';
import { pageWindow, type FetchPage } from './page-window.js';
import { createPartitionWriter } from './partition-writer.js';
import {
  changedOpenEvents,
  completeRun,
  createPositionTracker,
  expiredOpen,
  nextWindow,
  observeOpen,
  planRun,
  planSpotChecks,
  type OpenEvent,
  type PlanOptions,
} from './pull-plan.js';


/** Pages whose fsync may still be running while the next ones are prepared. */
const PAGES_IN_FLIGHT = 4;
/** Spot checks are one small request each: a few in flight hide the round trips. */
const SPOT_CHECK_CONCURRENCY = 4;

export interface PullCounters {
  runs: number;
  pages: number;
  /** Events the feed returned. */
  events: number;
  /** Lines appended (new event versions). */
  written: number;
  /** Versions already in the archive, skipped. */
  duplicates: number;
}

export interface PullProgress extends PullCounters {
  readonly phase: 'pulling' | 'idle';
  readonly eventsPerSecond: number;
  /** The run in progress: `[from, to]`, and how far back (start time) its pages have reached. */
  readonly run: { readonly from: number; readonly to: number; readonly position: number } | null;
  /** End of the last completed run: everything that started before it has been archived. */
  readonly watermark: number | null;
  readonly lagMs: number | null;
  readonly openEvents: number;
}

export interface PullSessionOptions {
  readonly fetchPage: FetchPage;
  readonly archiveDir: string;
  readonly env: string;
  readonly eventType?: string | undefined;
  readonly entityId?: string | undefined;
  readonly clock: Clock;
  readonly log: Logger;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: PullProgress) => void) | undefined;
  readonly fs?: FsLayer | undefined;
  readonly plan: PlanOptions;
  /** Checkpoint at most this often while paging (always at the end of a window and of a run). */
  readonly checkpointEveryMs: number;
  /** Spot-check windows per run (old open events); a larger backlog is worked through over later runs. */
  readonly maxSpotChecks: number;
}

export interface PullSession {
  /** Finishes an interrupted run if there is one, then pulls from where the archive stands up to now. */
  pull(): Promise<void>;
  readonly counters: Readonly<PullCounters>;
  progress(phase: PullProgress['phase']): PullProgress;
  close(): Promise<void>;
}

/** Takes the environment's lock and reads its checkpoint; the session then owns both until `close()`. */
export async function openPullSession(options: PullSessionOptions): Promise<PullSession> {
  const fs = options.fs ?? nodeFs;
  const envDir = join(options.archiveDir, options.env);
  await mkdirDurable(options.archiveDir, fs);
  await mkdirDurable(envDir, fs);
  const lock = await acquireArchiveLock(envDir);
  try {
    const checkpoint = await readCheckpoint(envDir, options.env);
    return createSession(options, envDir, fs, checkpoint, () => lock.release());
  } catch (error) {
    await lock.release();
    throw error;
  }
}

function createSession(options: PullSessionOptions, envDir: string, fs: FsLayer, initial: Checkpoint, release: () => Promise<void>): PullSession {
  const { clock, log, signal } = options;
  const key = streamKey(options);
  let checkpoint = initial;
  let stream: StreamState = checkpoint.streams[key] ?? emptyStream();
  const open = new Map<string, OpenEvent>(Object.entries(stream.open));
  let spotRotation = 0;
  const writer = createPartitionWriter({ envDir, fs, log });
  const commits = createCommitQueue(PAGES_IN_FLIGHT);
  const counters: PullCounters = { runs: 0, pages: 0, events: 0, written: 0, duplicates: 0 };
  let lastCheckpoint = performance.now();
  let checkpointGap = options.checkpointEveryMs;
  let pullStarted = performance.now();
  let eventsAtPullStart = 0;

  let saving: Promise<void> = Promise.resolve();
  /** Checkpoint writes run one at a time, each with the state as it is when it starts. */
  const save = (): Promise<void> => {
    const write = async (): Promise<void> => {
      const started = performance.now();
      stream = { ...stream, open: Object.fromEntries(open) };
      checkpoint = { ...checkpoint, updatedAt: new Date(clock.now()).toISOString(), streams: { ...checkpoint.streams, [key]: stream } };
      lastCheckpoint = started;
      await writeCheckpoint(envDir, checkpoint, fs);
      // A big open set makes each checkpoint costly: keep them to a small share of the time, whatever the interval says.
      checkpointGap = Math.max(options.checkpointEveryMs, 20 * (performance.now() - started));
    };
    const next = saving.then(write, write);
    saving = next.catch(() => undefined);
    return next;
  };

  const progress = (phase: PullProgress['phase']): PullProgress => {
    const seconds = (performance.now() - pullStarted) / 1000;
    return {
      ...counters,
      phase,
      eventsPerSecond: seconds > 0 ? Math.round((counters.events - eventsAtPullStart) / seconds) : 0,
      run: stream.run ? { ...stream.run } : null,
      watermark: stream.watermark,
      lagMs: stream.watermark === null ? null : Math.max(0, clock.now() - stream.watermark),
      openEvents: open.size,
    };
  };

  /** Stages a page's writes; its effects on the state (what the next checkpoint says) apply once it is on disk. */
  const onPage = async (page: FeedPage, afterWrite: () => void): Promise<void> => {
    const { outcome, durable } = await writer.stage(page.events);
    await commits.add(durable, () => {
      observeOpen(open, page.events);
      afterWrite();
      counters.pages++;
      counters.events += page.events.length;
      counters.written += outcome.written;
      counters.duplicates += outcome.duplicates;
      options.onProgress?.(progress('pulling'));
      if (performance.now() - lastCheckpoint >= checkpointGap) {
        save().catch((error: unknown) => log.warn({ err: error }, 'could not write the checkpoint; trying again later'));
      }
    });
  };

  const query = (window: { from: number; to: number; entityId?: string | undefined }): WindowQuery => ({
    from: window.from,
    to: window.to,
    eventType: options.eventType,
    entityId: window.entityId ?? options.entityId,
  });

  const executeRun = async (run: RunState): Promise<void> => {
    stream = { ...stream, run };
    writer.forgetBefore(utcDay(run.from));
    log.info({ from: new Date(run.from).toISOString(), to: new Date(run.to).toISOString(), resumeAt: new Date(run.position).toISOString() }, 'pull run started');
    for (let window = nextWindow(run); window; window = nextWindow(run)) {
      const tracker = createPositionTracker(window);
      await pageWindow(options.fetchPage, query(window), signal, (page) =>
        onPage(page, () => {
          run.position = tracker.observe(page.events);
        }),
      );
      await commits.drain();
      run.position = window.from;
      await save();
    }
    stream = completeRun(stream, run);
    counters.runs++;
    await save();
  };

  /** Looks again for open events older than the run's window; they close in place, so no position to keep. */
  const spotCheck = async (coveredFrom: number): Promise<void> => {
    const checks = planSpotChecks(open, coveredFrom, options.maxSpotChecks, spotRotation);
    spotRotation += checks.length;
    await mapConcurrent(checks, SPOT_CHECK_CONCURRENCY, (check) =>
      pageWindow(options.fetchPage, query(check), signal, (page) => onPage({ ...page, events: changedOpenEvents(open, page.events) }, () => undefined)),
    );
    await commits.drain();
    if (checks.length > 0) await save();
  };

  const startRun = (): RunState => {
    const now = clock.now();
    for (const id of expiredOpen(open, now, options.plan)) {
      log.warn({ id, startTime: open.get(id)?.startTime }, 'open event older than the retention bound: its closing will not be archived');
      open.delete(id);
    }
    return { ...planRun(stream, open, now, options.plan) };
  };

  return {
    counters,
    progress,
    async pull() {
      pullStarted = performance.now();
      eventsAtPullStart = counters.events;
      try {
        if (stream.run) await executeRun({ ...stream.run });
        const run = startRun();
        await executeRun(run);
        await spotCheck(run.from);
      } catch (error) {
        // Whatever is in memory covers only pages already fsynced, so it is safe to keep as the checkpoint.
        await commits.drain().catch(() => undefined);
        await save().catch((saveError: unknown) => log.error({ err: saveError }, 'could not write the checkpoint'));
        throw error;
      } finally {
        options.onProgress?.(progress('idle'));
      }
    },
    async close() {
      await writer.close();
      await release();
    },
  };
}
