import { join } from 'node:path';
import type { Clock } from '../lib/clock.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { mkdirDurable } from '../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import type { Logger } from '../lib/logger.js';
import { acquireArchiveLock } from './archive-lock.js';
import { createCommitQueue } from './commit-queue.js';
import { DAY_MS, utcDay } from './archived-event.js';
import { readCheckpoint, streamKey, type Checkpoint, type RunState } from './checkpoint.js';
import { createCheckpointKeeper, type CheckpointKeeper } from './checkpoint-keeper.js';
import type { FeedPage, WindowQuery } from './feed-page-parse.js';
import { pageWindow, type FetchPage } from './page-window.js';
import { createPartitionWriter, type PartitionWriter } from './partition-writer.js';
import {
  changedOpenEvents,
  completeRun,
  createPositionTracker,
  expiredOpen,
  nextWindow,
  observeOpen,
  planRun,
  planSpotChecks,
  type PlanOptions,
} from './pull-plan.js';

/** Later than any partition day. */
const MAX_DAY = '9999-12-31';
/** Pages whose fsync may still be running while the next ones are prepared. */
const PAGES_IN_FLIGHT = 16;
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
    return new Session(options, envDir, fs, checkpoint, () => lock.release());
  } catch (error) {
    await lock.release();
    throw error;
  }
}

class Session implements PullSession {
  readonly counters: PullCounters = { runs: 0, pages: 0, events: 0, written: 0, duplicates: 0 };
  private readonly state: CheckpointKeeper;
  private readonly writer: PartitionWriter;
  private readonly commits = createCommitQueue(PAGES_IN_FLIGHT);
  private spotRotation = 0;
  private forgottenAbove: string | undefined;
  private pullStarted = performance.now();
  private eventsAtPullStart = 0;

  constructor(
    private readonly options: PullSessionOptions,
    envDir: string,
    fs: FsLayer,
    initial: Checkpoint,
    private readonly release: () => Promise<void>,
  ) {
    this.state = createCheckpointKeeper({ envDir, key: streamKey(options), initial, clock: options.clock, fs, everyMs: options.checkpointEveryMs });
    this.writer = createPartitionWriter({ envDir, fs, log: options.log });
  }

  async pull(): Promise<void> {
    this.pullStarted = performance.now();
    this.eventsAtPullStart = this.counters.events;
    try {
      if (this.state.stream.run) await this.executeRun({ ...this.state.stream.run });
      const run = this.startRun();
      await this.executeRun(run);
      await this.spotCheck(run.from);
    } catch (error) {
      // Whatever is in memory covers only pages already fsynced, so it is safe to keep as the checkpoint.
      await this.commits.drain().catch(() => undefined);
      await this.state.save().catch((saveError: unknown) => this.options.log.error({ err: saveError }, 'could not write the checkpoint'));
      throw error;
    } finally {
      this.options.onProgress?.(this.progress('idle'));
    }
  }

  progress(phase: PullProgress['phase']): PullProgress {
    const seconds = (performance.now() - this.pullStarted) / 1000;
    const { run, watermark } = this.state.stream;
    return {
      ...this.counters,
      phase,
      eventsPerSecond: seconds > 0 ? Math.round((this.counters.events - this.eventsAtPullStart) / seconds) : 0,
      run: run ? { ...run } : null,
      watermark,
      lagMs: watermark === null ? null : Math.max(0, this.options.clock.now() - watermark),
      openEvents: this.state.open.size,
    };
  }

  async close(): Promise<void> {
    await this.writer.close();
    await this.release();
  }

  private startRun(): RunState {
    const { clock, log, plan } = this.options;
    const now = clock.now();
    for (const id of expiredOpen(this.state.open, now, plan)) {
      log.warn({ id, startTime: this.state.open.get(id)?.startTime }, 'open event older than the retention bound: its closing will not be archived');
      this.state.open.delete(id);
    }
    return { ...planRun(this.state.stream, this.state.open, now, plan) };
  }

  /** Pages `[run.from, run.position]` newest first, window by window, moving the position as pages become durable. */
  private async executeRun(run: RunState): Promise<void> {
    this.state.stream = { ...this.state.stream, run };
    this.writer.forgetOutside(utcDay(run.from), MAX_DAY);
    const iso = (ms: number): string => new Date(ms).toISOString();
    this.options.log.info({ from: iso(run.from), to: iso(run.to), resumeAt: iso(run.position) }, 'pull run started');
    for (let window = nextWindow(run); window; window = nextWindow(run)) {
      const tracker = createPositionTracker(window);
      await pageWindow(this.options.fetchPage, this.query(window), this.options.signal, (page) =>
        this.onPage(page, () => {
          run.position = tracker.observe(page.events);
          this.forgetDaysAbove(run);
        }),
      );
      await this.commits.drain();
      run.position = window.from;
      await this.state.save();
    }
    this.state.stream = completeRun(this.state.stream, run);
    this.counters.runs++;
    await this.state.save();
  }

  /** Looks again for open events older than the run's window; they close in place, so no position to keep. */
  private async spotCheck(coveredFrom: number): Promise<void> {
    const open = this.state.open;
    const checks = planSpotChecks(open, coveredFrom, this.options.maxSpotChecks, this.spotRotation);
    this.spotRotation += checks.length;
    await mapConcurrent(checks, SPOT_CHECK_CONCURRENCY, (check) =>
      pageWindow(this.options.fetchPage, this.query(check), this.options.signal, (page) =>
        this.onPage({ ...page, events: changedOpenEvents(open, page.events) }, () => undefined),
      ),
    );
    await this.commits.drain();
    if (checks.length > 0) await this.state.save();
  }

  /** Stages a page's writes; its effects on the state (what the next checkpoint says) apply once it is on disk. */
  private async onPage(page: FeedPage, afterWrite: () => void): Promise<void> {
    const { outcome, durable } = await this.writer.stage(page.events);
    await this.commits.add(durable, () => {
      observeOpen(this.state.open, page.events);
      afterWrite();
      this.counters.pages++;
      this.counters.events += page.events.length;
      this.counters.written += outcome.written;
      this.counters.duplicates += outcome.duplicates;
      this.options.onProgress?.(this.progress('pulling'));
      if (this.state.due()) {
        this.state.save().catch((error: unknown) => this.options.log.warn({ err: error }, 'could not write the checkpoint; trying again later'));
      }
    });
  }

  /**
   * Pages come newest first, so once the position is a day below a partition, this run writes there no more: its
   * versions need not stay in memory (a backfill of millions of events then holds about two days of them).
   */
  private forgetDaysAbove(run: RunState): void {
    const day = utcDay(run.position + DAY_MS);
    if (day === this.forgottenAbove) return;
    this.forgottenAbove = day;
    this.writer.forgetOutside(utcDay(run.from), day);
  }

  private query(window: { from: number; to: number; entityId?: string | undefined }): WindowQuery {
    return { from: window.from, to: window.to, eventType: this.options.eventType, entityId: window.entityId ?? this.options.entityId };
  }
}
