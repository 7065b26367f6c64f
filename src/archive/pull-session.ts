import { join } from 'node:path';
import type { Clock } from '../lib/clock.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { mkdirDurable } from '../lib/durable-file.js';
import { ensureGitIgnoredFolder } from '../lib/git-ignored-folder.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import type { Logger } from '../lib/logger.js';
import { acquireArchiveLock } from './archive-lock.js';
import { DEFAULT_ARCHIVE_DIR_NAME, listPartitions } from './archive-layout.js';
import { createCommitQueue } from './commit-queue.js';
import { DAY_MS, dayStart, utcDay } from './archived-event.js';
import { readCheckpoint, streamKey, type Checkpoint, type RunState } from './checkpoint.js';
import { createCheckpointKeeper, type CheckpointKeeper } from './checkpoint-keeper.js';
import type { FeedPage, WindowQuery } from './feed-page-parse.js';
import { pageWindow, type FetchPage } from './page-window.js';
import { createPartitionWriter, type PartitionWriter } from './partition-writer.js';
import { removeWriteLeftovers } from '../lib/write-leftovers.js';
import { changedOpenEvents, completeRun, createPositionTracker, nextWindow, planRun, planSpotChecks, type OpenEvent, type PlanOptions } from './pull-plan.js';

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
  /** `idle` after a pass that completed, `stopped` after one an error or a stop ended (what it wrote stays written). */
  readonly phase: 'pulling' | 'idle' | 'stopped';
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
  // Its default place is in the project's repository: kept out of `git status`, as the data dir is.
  await ensureGitIgnoredFolder(options.archiveDir, DEFAULT_ARCHIVE_DIR_NAME, fs);
  await mkdirDurable(envDir, fs);
  const lock = await acquireArchiveLock(envDir);
  try {
    // The checkpoint's, from a pull killed while writing it: the lock makes this pull the folder's one writer.
    await removeWriteLeftovers(envDir, options.log, fs);
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
  /**
   * How many open events this stream looks for, per partition day: a number per day, never the events (those stay
   * in the partitions' `_open.json`, read one day at a time). Every day within the retention bound is counted once
   * per session, then the days a pull touches are counted again.
   */
  private readonly openByDay = new Map<string, number>();
  private openCounted = false;
  /** Days whose open events pages changed since they were last counted. */
  private readonly touchedDays = new Set<string>();
  /** Where the next pull's spot checks start, when the last one stopped at its limit: a day and the windows done. */
  private spotCursor = { day: '', skip: 0 };
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
    // A day written to is counted as it is dropped, from memory: reading its `_open.json` back at the end of a pull
    // cost a million-event backfill more than a tenth of its time.
    this.writer = createPartitionWriter({ envDir, fs, log: options.log, onRetired: (day, open) => this.countRetired(day, open) });
  }

  async pull(): Promise<void> {
    this.pullStarted = performance.now();
    this.eventsAtPullStart = this.counters.events;
    let ended: PullProgress['phase'] = 'stopped';
    try {
      if (this.state.stream.run) await this.executeRun({ ...this.state.stream.run });
      const run = await this.startRun();
      await this.executeRun(run);
      await this.spotCheck(run.from);
      for (const day of this.touchedDays) await this.countDay(day);
      this.touchedDays.clear();
      ended = 'idle';
    } catch (error) {
      // Whatever is in memory covers only pages already fsynced, so it is safe to keep as the checkpoint.
      await this.commits.drain().catch(() => undefined);
      await this.state.save().catch((saveError: unknown) => this.options.log.error({ err: saveError }, 'could not write the checkpoint'));
      throw error;
    } finally {
      this.options.onProgress?.(this.progress(ended));
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
      openEvents: [...this.openByDay.values()].reduce((sum, count) => sum + count, 0),
    };
  }

  async close(): Promise<void> {
    await this.writer.close();
    await this.release();
  }

  private async startRun(): Promise<RunState> {
    const { clock, plan } = this.options;
    const now = clock.now();
    if (!this.openCounted) {
      for (const day of await this.days(now - plan.openRetentionMs)) await this.countDay(day);
      this.openCounted = true;
    }
    this.expireDays(now);
    const recent = new Map<string, OpenEvent>();
    for (const day of await this.days(now - plan.maxReachBackMs)) for (const [id, event] of await this.countDay(day)) recent.set(id, event);
    return { ...planRun(this.state.stream, recent, now, plan) };
  }

  /** Partition days from the one holding `from` on (up to `to`), oldest first. */
  private async days(from: number, to = Number.POSITIVE_INFINITY): Promise<string[]> {
    return (await listPartitions(this.options.archiveDir, this.options.env, from, to)).map((partition) => partition.day);
  }

  /** The day's open events this stream looks for (its filter, within the retention bound); counts them as it goes. */
  private async countDay(day: string): Promise<Map<string, OpenEvent>> {
    const wanted = this.wantedOpen(await this.writer.openEvents(day));
    this.openByDay.set(day, wanted.size);
    return wanted;
  }

  /**
   * A day the writer dropped, with every line it staged on disk: counted now, it need not be read back. A page that
   * touches it again (or whose touch is committed later) marks it again, to be counted at the end of the pull.
   */
  private countRetired(day: string, open: ReadonlyMap<string, OpenEvent>): void {
    if (!this.touchedDays.delete(day)) return;
    this.openByDay.set(day, this.wantedOpen(open).size);
  }

  /** The open events this stream looks for: its filter, within the retention bound. */
  private wantedOpen(open: ReadonlyMap<string, OpenEvent>): Map<string, OpenEvent> {
    const { eventType, entityId, clock, plan } = this.options;
    const bound = clock.now() - plan.openRetentionMs;
    const wanted = new Map<string, OpenEvent>();
    for (const [id, event] of open) {
      if (event.startTime < bound || (eventType && event.eventType !== eventType) || (entityId && event.entityId !== entityId)) continue;
      wanted.set(id, event);
    }
    return wanted;
  }

  /** Days wholly before the retention bound are looked at no more: their open events are given up on, once, aloud. */
  private expireDays(now: number): void {
    const bound = now - this.options.plan.openRetentionMs;
    for (const [day, count] of this.openByDay) {
      if ((dayStart(day) ?? 0) + DAY_MS > bound) continue;
      if (count > 0) this.options.log.warn({ day, openEvents: count }, 'open events older than the retention bound: their closing will not be archived');
      this.openByDay.delete(day);
    }
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
      await this.pagesDurable();
      run.position = window.from;
      await this.state.save();
    }
    this.state.stream = completeRun(this.state.stream, run);
    this.counters.runs++;
    await this.state.save();
  }

  /**
   * Looks again for open events older than the run's window, one partition day at a time (so one day's open events
   * are in memory, whatever the backlog); they close in place, so no position to keep. At most `maxSpotChecks`
   * windows per pull, continuing where the last pull stopped, so a long backlog is worked through over several.
   */
  private async spotCheck(coveredFrom: number): Promise<void> {
    const { clock, plan, maxSpotChecks } = this.options;
    const days = await this.days(clock.now() - plan.openRetentionMs, coveredFrom - 1);
    const first = Math.max(0, days.findIndex((day) => day >= this.spotCursor.day));
    let budget = maxSpotChecks;
    for (let i = 0; i < days.length && budget > 0; i++) {
      const day = days[(first + i) % days.length] as string;
      const skip = day === this.spotCursor.day ? this.spotCursor.skip : 0;
      const open = await this.countDay(day);
      const windows = planSpotChecks(open, coveredFrom);
      const checks = windows.slice(skip, skip + budget);
      budget -= checks.length;
      const done = skip + checks.length;
      this.spotCursor = done < windows.length ? { day, skip: done } : { day: days[(first + i + 1) % days.length] as string, skip: 0 };
      await mapConcurrent(checks, SPOT_CHECK_CONCURRENCY, (check) =>
        pageWindow(this.options.fetchPage, this.query(check), this.options.signal, (page) =>
          this.onPage({ ...page, events: changedOpenEvents(open, page.events) }, () => undefined),
        ),
      );
      await this.pagesDurable();
      await this.countDay(day);
      this.touchedDays.delete(day);
      // Written to and counted: the day's versions and open events go back to disk, unless the run's window holds it.
      this.writer.forgetOutside(utcDay(coveredFrom), MAX_DAY);
    }
  }

  /**
   * Waits until every staged page is on disk, then stops if the signal aborted meanwhile. Progress (where a caller
   * may abort) is reported as pages become durable, so an abort can land after a window's last page was fetched:
   * the pull still rejects, as documented, instead of telling a caller that asked to stop that it completed.
   */
  private async pagesDurable(): Promise<void> {
    await this.commits.drain();
    this.options.signal.throwIfAborted();
  }

  /** Stages a page's writes; its effects on the state (what the next checkpoint says) apply once it is on disk. */
  private async onPage(page: FeedPage, afterWrite: () => void): Promise<void> {
    const { outcome, durable } = await this.writer.stage(page.events);
    await this.commits.add(durable, () => {
      for (const day of outcome.days) this.touchedDays.add(day);
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
