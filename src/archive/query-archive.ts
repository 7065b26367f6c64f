import { MAX_LINE_BYTES, readLines } from '../lib/jsonl.js';
import { listEnvironments, listPartitions, type Partition } from './archive-layout.js';
import { readEventView, type ArchivedEvent, type ArchivedEventView } from './archived-event.js';

export { parseTimeArg, parseDuration } from './time-arg.js';
export type { ArchivedEvent, ArchivedEventView } from './archived-event.js';

/** An archived event and the environment folder it was read from (a query may read several). */
export interface QueriedEvent extends ArchivedEvent {
  readonly env: string;
}

export type BadLineHandler = (file: string, line: number, message: string) => void;

export interface ArchiveFilter {
  readonly archiveDir: string;
  readonly env?: string | undefined;
  readonly eventType?: string | undefined;
  readonly entityId?: string | undefined;
  /** On the event's start time, inclusive. */
  readonly from?: number | undefined;
  readonly to?: number | undefined;
  readonly onBadLine?: BadLineHandler | undefined;
  readonly signal?: AbortSignal | undefined;
}

export interface QueryArchiveOptions extends ArchiveFilter {
  readonly status?: 'OPEN' | 'CLOSED' | undefined;
  /** One line per event: its newest version (the last line written for its id). Status is matched after folding. */
  readonly latest?: boolean | undefined;
  /** Told each event read, whatever the filters: what a query that matched nothing can name instead (a type, an entity). */
  readonly onRead?: ((event: ArchivedEventView) => void) | undefined;
}

/**
 * Streams archived events matching the filter, oldest first: by start time, then id, then the order versions were
 * written (the feed pages newest first, so the written order alone would run backwards within a day). Only
 * partitions whose day overlaps `[from, to]` are opened, one UTC day (of every environment) at a time, so memory is
 * bounded by one day of the archive. An unreadable line, or one too long to read (over MAX_LINE_BYTES), is reported
 * to `onBadLine` with its file and line number, and skipped.
 */
export async function* queryArchive(options: QueryArchiveOptions): AsyncGenerator<QueriedEvent> {
  for (const partitions of byDay(await selectPartitions(options))) {
    const day: QueriedEvent[] = [];
    for (const partition of partitions) {
      const lines = readPartition(partition, options);
      for (const item of options.latest ? await foldLatest(lines) : await collect(lines)) {
        options.onRead?.(item.event);
        if (matches(item.event, options) && (options.status === undefined || item.event.eventStatus === options.status)) day.push({ ...item, env: partition.env });
      }
    }
    // Array.prototype.sort is stable: versions of one event keep their written order.
    yield* day.sort((a, b) => a.event.startTime - b.event.startTime || (a.event.id < b.event.id ? -1 : a.event.id > b.event.id ? 1 : 0));
  }
}

export interface NewestOptions extends ArchiveFilter {
  /** How many events are wanted: the read stops once it has one more, so the caller knows the range holds more. */
  readonly limit: number;
  /** Whether an event may be kept, by what all its versions share (type, entity, id): asked of each line as read. */
  readonly keep?: ((event: ArchivedEventView) => boolean) | undefined;
  /** Whether an event is wanted by its newest version (its status): asked once its day is folded. */
  readonly wanted?: ((event: ArchivedEventView) => boolean) | undefined;
  /** Told each event read, whatever the filters. */
  readonly onRead?: ((event: ArchivedEventView) => void) | undefined;
}

/**
 * The newest `limit` + 1 events matching, each by its newest version, newest first (by start time, then id): the
 * newest day first, stopping once it has them. A day is folded keeping only the events that can still be among the
 * newest wanted (about twice as many, whatever the day holds): a console view folded a whole day of a busy archive,
 * 720 MB at a million events a day. With `wanted` (a status, which only the newest version tells) a day is folded
 * whole, as queryArchive folds it.
 */
export async function* newestEvents(options: NewestOptions): AsyncGenerator<QueriedEvent> {
  let left = options.limit + 1;
  for (const partitions of byDay(await selectPartitions(options)).reverse()) {
    const day = new NewestOfDay(options.wanted ? Number.POSITIVE_INFINITY : left);
    for (const partition of partitions) {
      for await (const item of readPartition(partition, options)) {
        options.onRead?.(item.event);
        if (matches(item.event, options) && (options.keep?.(item.event) ?? true)) day.add({ ...item, env: partition.env });
      }
    }
    for (const item of day.newest()) {
      if (options.wanted && !options.wanted(item.event)) continue;
      yield item;
      if (--left === 0) return;
    }
  }
}

/** Newest first: by start time, then id, both descending. */
function newerFirst(a: QueriedEvent, b: QueriedEvent): number {
  return b.event.startTime - a.event.startTime || (a.event.id < b.event.id ? 1 : a.event.id > b.event.id ? -1 : 0);
}

/**
 * The newest `size` events of a day as its lines are read, each by its newest version (the last written). All
 * versions of an event share its start time, so an event ordered after the `size`-th kept can never be among them:
 * past twice `size`, the older ones go and become the floor nothing older passes.
 */
class NewestOfDay {
  private readonly byId = new Map<string, QueriedEvent>();
  private floor: QueriedEvent | undefined;

  constructor(private readonly size: number) {}

  add(item: QueriedEvent): void {
    if (this.floor !== undefined && newerFirst(item, this.floor) > 0) return;
    // Per environment: one archive may hold the same id in two.
    this.byId.set(`${item.env}\u0000${item.event.id}`, item);
    if (this.byId.size > 2 * this.size) this.keepNewest();
  }

  newest(): QueriedEvent[] {
    return [...this.byId.values()].sort(newerFirst);
  }

  private keepNewest(): void {
    const sorted = this.newest();
    this.floor = sorted[this.size - 1];
    for (const item of sorted.slice(this.size)) this.byId.delete(`${item.env}\u0000${item.event.id}`);
  }
}

/** Partitions grouped by UTC day, oldest day first. */
function byDay(partitions: readonly Partition[]): Partition[][] {
  const days = new Map<string, Partition[]>();
  for (const partition of [...partitions].sort((a, b) => a.start - b.start)) days.set(partition.day, [...(days.get(partition.day) ?? []), partition]);
  return [...days.values()];
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

export interface ArchiveStats {
  /** Distinct events (each counted once, by its newest version). */
  readonly events: number;
  /** Archived lines (every version) of the events that match the filter. */
  readonly versions: number;
  readonly byType: Record<string, number>;
  readonly byStatus: Record<string, number>;
  readonly byDay: Record<string, number>;
}

/** Counts by type, status and start day over each event's newest version, streaming one partition at a time. */
export async function archiveStats(options: ArchiveFilter): Promise<ArchiveStats> {
  const stats = { events: 0, versions: 0, byType: counts(), byStatus: counts(), byDay: counts() };
  for (const partition of await selectPartitions(options)) {
    // Partitions are whole days: one overlapping [from, to] can still hold versions outside it.
    const counted = countVersions(readPartition(partition, options), (event) => {
      if (matches(event, options)) stats.versions++;
    });
    for (const { event } of await foldLatest(counted)) {
      if (!matches(event, options)) continue;
      stats.events++;
      increment(stats.byType, event.eventType ?? '(none)');
      increment(stats.byStatus, event.eventStatus ?? '(none)');
      increment(stats.byDay, partition.day);
    }
  }
  return stats;
}

/**
 * Counts by a name the archive's lines give (an event type or status a target answered): without a prototype, so
 * `toString` or `constructor` count from 0 like any other name and `__proto__` is a key of its own, not dropped.
 */
function counts(): Record<string, number> {
  return Object.create(null) as Record<string, number>;
}

function increment(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

async function* countVersions(lines: AsyncIterable<ArchivedEvent>, onLine: (event: ArchivedEventView) => void): AsyncGenerator<ArchivedEvent> {
  for await (const line of lines) {
    onLine(line.event);
    yield line;
  }
}

async function selectPartitions(options: ArchiveFilter): Promise<Partition[]> {
  const envs = options.env ? [options.env] : await listEnvironments(options.archiveDir);
  const all = await Promise.all(envs.map((env) => listPartitions(options.archiveDir, env, options.from, options.to)));
  return all.flat();
}

function matches(event: ArchivedEventView, filter: ArchiveFilter): boolean {
  if (filter.eventType !== undefined && !sameType(event.eventType, filter.eventType)) return false;
  if (filter.entityId !== undefined && event.entityId !== filter.entityId) return false;
  if (filter.from !== undefined && event.startTime < filter.from) return false;
  if (filter.to !== undefined && event.startTime > filter.to) return false;
  return true;
}

/**
 * In any case: `custom_deployment` for CUSTOM_DEPLOYMENT matched nothing, silently, yet a type is whatever its pusher
 * chose (`my_custom`), so upper-casing the filter would not do either.
 */
export function sameType(eventType: string | undefined, wanted: string): boolean {
  // Lengths first: a query over a million events upper-cased two strings for each one of another type.
  return eventType === wanted || (eventType !== undefined && eventType.length === wanted.length && eventType.toUpperCase() === wanted.toUpperCase());
}

async function* readPartition(partition: Partition, options: ArchiveFilter): AsyncGenerator<ArchivedEvent> {
  try {
    for await (const line of readLines(partition.file, { signal: options.signal })) {
      if (line.tooLongBytes !== undefined) {
        options.onBadLine?.(partition.file, line.number, `line too long (${line.tooLongBytes} bytes, at most ${MAX_LINE_BYTES})`);
        continue;
      }
      if (line.text.trim() === '') continue;
      try {
        yield { raw: line.text, event: readEventView(line.text) };
      } catch (error) {
        options.onBadLine?.(partition.file, line.number, (error as Error).message);
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/**
 * Each id's newest version, in the order ids first appear. All versions of an event share its start day, so one
 * partition holds them all and the fold needs no more than that partition in memory.
 */
async function foldLatest(lines: AsyncIterable<ArchivedEvent>): Promise<ArchivedEvent[]> {
  const newest = new Map<string, ArchivedEvent>();
  for await (const item of lines) newest.set(item.event.id, item);
  return [...newest.values()];
}
