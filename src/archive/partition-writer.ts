import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, mkdirDurable } from '../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../lib/fs-layer.js';
import { readLines } from '../lib/jsonl.js';
import { errorMessage } from '../lib/error-message.js';
import type { Logger } from '../lib/logger.js';
import { createAppendHandles, type AppendHandles } from './append-handles.js';
import { readEventView, utcDay, type ArchivedEvent } from './archived-event.js';
import { partitionBytes, readOpenIndex, writeOpenIndex } from './open-index.js';
import { observeOpen, type OpenEvent } from './pull-plan.js';
import { removeWriteLeftovers } from '../lib/write-leftovers.js';
import { VersionIndex } from './version-index.js';

export const PARTITION_FILE = 'events.jsonl';

export function partitionDir(envDir: string, day: string): string {
  return join(envDir, `date=${day}`);
}

export interface WriteOutcome {
  readonly written: number;
  readonly duplicates: number;
  readonly days: readonly string[];
}

export interface StagedWrite {
  readonly outcome: WriteOutcome;
  /** Resolves once the page's new lines are fsynced (appends to one file happen in the order they were staged). */
  readonly durable: Promise<void>;
}

export interface PartitionWriter {
  /**
   * Picks the event versions not yet in their partitions and starts appending them. Resolves as soon as the
   * appends are queued, so the next page can be prepared while this one is fsynced; `durable` says when it is.
   */
  stage(events: readonly ArchivedEvent[]): Promise<StagedWrite>;
  /**
   * Drops the cached versions of days outside `[first, last]`, writing each one's open events beside it once its
   * appends are on disk, and closes their files; a day is re-read from disk if touched again. Callers only drop days
   * no staged page can still be writing to.
   */
  forgetOutside(first: string, last: string): void;
  /**
   * The day's open events (those whose last archived version is OPEN): the live set of a day in memory, else its
   * `_open.json`, rebuilt from the partition when that is missing or stale. Bounded by one day's events.
   */
  openEvents(day: string): Promise<ReadonlyMap<string, OpenEvent>>;
  /** Writes each day's open events beside it, and closes the files; the days stay loaded. */
  close(): Promise<void>;
}

interface DayState {
  readonly dir: string;
  readonly file: string;
  readonly versions: VersionIndex;
  /** Events whose last version staged for this partition is OPEN (kept beside it as `_open.json`). */
  readonly open: Map<string, OpenEvent>;
  /** The partition's length once every staged append is on disk. */
  bytes: number;
  /** The day's appends, in order: once this settles no staged line is still being written. */
  appended: Promise<void>;
  /**
   * The file did not exist when the day was loaded: its directory entry must be fsynced once after the first
   * append. Pages appended together share that one fsync.
   */
  readonly isNew: boolean;
  entrySynced: Promise<void> | undefined;
}

/**
 * Writes events into `<envDir>/date=YYYY-MM-DD/events.jsonl` by UTC start day.
 *
 * Invariant: a partition never holds two lines with the same version key. Before a day is first written in this
 * process its file is read and the key of every line remembered, so lines appended by a run killed after its last
 * checkpoint are recognised and not written twice; the checkpoint therefore only says where to resume fetching,
 * never what the files contain. A last line without its newline (an append cut short) is truncated away first.
 */
export interface PartitionWriterOptions {
  readonly envDir: string;
  readonly fs?: FsLayer;
  readonly log: Logger;
  /**
   * Told a dropped day's open events once all its staged lines are on disk (whether or not `_open.json` could be
   * written): what `openEvents(day)` would read back, without reading it.
   */
  readonly onRetired?: (day: string, open: ReadonlyMap<string, OpenEvent>) => void;
}

export function createPartitionWriter({ envDir, fs = nodeFs, log, onRetired }: PartitionWriterOptions): PartitionWriter {
  const days = new Map<string, Promise<DayState>>();
  /** Days being retired: loaded again only once their open events are written (or that failed). */
  const retiring = new Map<string, Promise<void>>();
  const handles = createAppendHandles(fs);
  let envReady: Promise<boolean> | undefined;

  const dayState = (day: string): Promise<DayState> => {
    let state = days.get(day);
    if (!state) {
      envReady ??= mkdirDurable(envDir, fs);
      const ready = Promise.all([envReady, retiring.get(day)?.catch(() => undefined)]);
      state = ready.then(() => loadDay(partitionDir(envDir, day), fs, log));
      days.set(day, state);
      state.catch(() => days.delete(day));
    }
    return state;
  };

  /** Drops a day whose file may hold less than it says (a failed append): the next use re-reads the file. */
  const forget = async (day: string): Promise<void> => {
    days.delete(day);
    await handles.close(join(partitionDir(envDir, day), PARTITION_FILE));
  };

  /** Drops a day after writing its open events beside it, once every line it staged is on disk. */
  const retire = (day: string, state: Promise<DayState>): Promise<void> => {
    if (days.get(day) === state) days.delete(day);
    const done = (async () => {
      const loaded = await state;
      await loaded.appended;
      // Only a cache of the partition: one that cannot be written is rebuilt by the next run, never a reason to stop.
      await writeOpenIndex(loaded.dir, loaded.bytes, loaded.open, fs).catch((error: unknown) =>
        log.warn({ dir: loaded.dir, err: errorMessage(error) }, 'could not write the open events beside a partition; the next run rebuilds them from it'),
      );
      onRetired?.(day, loaded.open);
      await handles.close(loaded.file);
    })();
    retiring.set(day, done);
    const settled = (): void => {
      if (retiring.get(day) === done) retiring.delete(day);
    };
    done.then(settled, settled);
    return done;
  };

  return {
    async stage(events) {
      const { batches, duplicates } = await batchNewVersions(events, dayState);
      const touched = [...batches].filter(([, batch]) => batch.lines.length > 0);
      const durable = Promise.all(
        touched.map(([day, { state, lines }]) => {
          const data = `${lines.join('\n')}\n`;
          state.bytes += Buffer.byteLength(data);
          const appended = appendDay(state, data, handles, fs).catch(async (error: unknown) => {
            // What reached the file is unknown: the day is re-read from disk before it is written again.
            await forget(day);
            throw error;
          });
          state.appended = appended;
          return appended;
        }),
      ).then(() => undefined);
      durable.catch(() => undefined);
      return { outcome: { written: events.length - duplicates, duplicates, days: touched.map(([day]) => day) }, durable };
    },
    forgetOutside(first, last) {
      for (const [known, state] of days) {
        if (known < first || known > last) retire(known, state).catch((error: unknown) => log.warn({ day: known, err: errorMessage(error) }, 'a partition’s last appends failed; the next run reads it again'));
      }
    },
    async openEvents(day) {
      await retiring.get(day)?.catch(() => undefined);
      const loaded = days.get(day);
      if (loaded) return (await loaded).open;
      const dir = partitionDir(envDir, day);
      const known = await readOpenIndex(dir, await partitionBytes(join(dir, PARTITION_FILE)));
      if (known) return known;
      const state = dayState(day);
      const { open } = await state;
      await retire(day, state);
      return open;
    },
    async close() {
      await Promise.allSettled([...days].map(([day, state]) => retire(day, state)));
      await handles.closeAll();
    },
  };
}

interface Batch {
  readonly state: DayState;
  readonly lines: string[];
}

/** The page's lines grouped by partition, leaving out versions the partition holds (or that repeat in the page). */
async function batchNewVersions(
  events: readonly ArchivedEvent[],
  dayState: (day: string) => Promise<DayState>,
): Promise<{ batches: Map<string, Batch>; duplicates: number }> {
  const batches = new Map<string, Batch>();
  const eventDays = events.map(({ event }) => utcDay(event.startTime));
  for (const day of new Set(eventDays)) batches.set(day, { state: await dayState(day), lines: [] });
  let duplicates = 0;
  events.forEach(({ raw, event }, index) => {
    const batch = batches.get(eventDays[index] as string) as Batch;
    if (batch.state.versions.add(event)) {
      batch.lines.push(raw);
      observeOpen(batch.state.open, event);
    } else duplicates++;
  });
  return { batches, duplicates };
}

async function appendDay(state: DayState, data: string, handles: AppendHandles, fs: FsLayer): Promise<void> {
  await handles.appendDurable(state.file, data);
  if (state.isNew) {
    state.entrySynced ??= fsyncDir(state.dir, fs);
    await state.entrySynced;
  }
}

async function loadDay(dir: string, fs: FsLayer, log: Logger): Promise<DayState> {
  const file = join(dir, PARTITION_FILE);
  // `_open.json`'s, from a pull killed while writing it.
  await removeWriteLeftovers(dir, log, fs);
  const versions = new VersionIndex();
  const open = new Map<string, OpenEvent>();
  let isNew = false;
  try {
    for await (const line of readLines(file)) {
      if (!line.terminated) {
        await truncateTo(file, line.offset);
        log.warn({ file, line: line.number, offset: line.offset }, 'removed an unfinished last line (an append cut short)');
        break;
      }
      if (line.tooLongBytes !== undefined) {
        log.warn({ file, line: line.number, bytes: line.tooLongBytes }, 'skipping an archive line too long to be an event');
        continue;
      }
      if (line.text === '') continue;
      try {
        const event = readEventView(line.text);
        versions.add(event);
        observeOpen(open, event);
      } catch (error) {
        log.warn({ file, line: line.number, err: (error as Error).message }, 'skipping an unreadable archive line');
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdirDurable(dir, fs);
    isNew = true;
  }
  return { dir, file, versions, open, bytes: await partitionBytes(file), appended: Promise.resolve(), isNew, entrySynced: undefined };
}

async function truncateTo(file: string, length: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.truncate(length);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
