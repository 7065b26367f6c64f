import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import { writeFileDurable } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { StoreError } from '../store/store-error.js';
import { EventIndex } from './event-index.js';
import { EventLog, prepareEventsDir, EVENT_LOG_FILE, scanEventLog, type LogSpan } from './event-log.js';
import type { EncodedEvent } from './event-record.js';
import { queryIndex, type FeedKey, type PageRequest } from './index-query.js';
import { digitsOf, parseEncodedEventId, parseEventIdDigits } from './int64.js';
import { OpenProblems } from './open-problems.js';

export const CURSOR_KEY_FILE = 'cursor.key';
/** Batches larger than this are linked into the index in one pass instead of one insert each. */
const BULK_THRESHOLD = 256;

export interface PutOutcome {
  readonly created: number;
  readonly replaced: number;
}

/** An event's place in feed order with its id digits, for cursors and `nextEventId`. */
export interface KeyedEvent {
  readonly key: FeedKey;
  readonly eventId: string;
}

export interface StorePage {
  /** Raw event texts (UTF-8 JSON, no newline), newest first. */
  readonly texts: Buffer[];
  readonly last: KeyedEvent | undefined;
  readonly next: KeyedEvent | undefined;
  readonly total: number | undefined;
}

export interface EntitySighting {
  readonly entityId: string;
  /** The newest event of the entity, as stored. */
  readonly text: Buffer;
  readonly startTime: number;
  readonly endTime: number | undefined;
}

/**
 * The events of one environment: a durable append-only log plus an in-memory index (see event-index.ts). Events
 * are immutable texts; a later text with the same `id` replaces the earlier one (how an open event closes).
 */
export interface EventStore {
  readonly dir: string;
  /** Distinct events stored. */
  readonly size: number;
  /** The HMAC key for this store's cursors, kept in the events directory. */
  readonly cursorKey: Buffer;
  readonly clock: Clock;
  /** Timeouts of pushed problem events that are still open. */
  readonly problems: OpenProblems;
  /** Appends and indexes; durable when it resolves. Writes are serialised. */
  put(events: readonly EncodedEvent[]): Promise<PutOutcome>;
  query(request: PageRequest): Promise<StorePage>;
  /** The current text of the event with this encoded id (`<eventId>_<startTime>`). */
  get(id: string): Promise<Buffer | undefined>;
  /** The newest event with this bare event id (a linear scan of two columns: a few ms per million events). */
  findByEventId(eventId: string): Promise<Buffer | undefined>;
  /** Entity ids that have at least one event. */
  entityIds(): string[];
  newestEventOf(entityId: string): Promise<EntitySighting | undefined>;
  /** Texts of every event without an end time. */
  openEvents(): Promise<Buffer[]>;
  close(): Promise<void>;
}

export interface EventStoreOptions {
  dir: string;
  clock?: Clock;
  log?: Logger;
  fs?: FsLayer;
  /** Batches larger than this are linked in one pass (tests lower it to exercise that path). */
  bulkThreshold?: number;
}

/** Opens (creating if needed) the store in `dir`: scans the log once, cutting a torn last line, and builds the index. */
export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {
  const { dir, clock = systemClock, log = silentLogger(), fs = nodeFs, bulkThreshold = BULK_THRESHOLD } = options;
  const started = performance.now();
  await prepareEventsDir(dir, fs, log);
  const cursorKey = await loadCursorKey(dir, fs, log);
  const path = join(dir, EVENT_LOG_FILE);
  const index = new EventIndex();
  // Canonical event lines are a few hundred bytes: sizing for the file avoids repeated growth during the scan.
  index.reserve(Math.ceil((await stat(path).then((s) => s.size, () => 0)) / 384));
  index.beginBulk();
  const scan = await scanEventLog(path, log, (fields, span) => index.upsert(fields, span.offset, span.length));
  index.endBulk();
  const eventLog = await EventLog.open(path, fs);
  const problems = await OpenProblems.load(dir, log, fs);
  log.info({ dir, events: index.size, lines: scan.records, ms: Math.round(performance.now() - started) }, 'event store opened');
  return new FileEventStore(dir, cursorKey, clock, problems, index, eventLog, bulkThreshold);
}

async function loadCursorKey(dir: string, fs: FsLayer, log: Logger): Promise<Buffer> {
  const path = join(dir, CURSOR_KEY_FILE);
  const existing = await readFile(path, 'utf8').catch(() => undefined);
  if (existing !== undefined && /^[0-9a-f]{64}$/.test(existing.trim())) return Buffer.from(existing.trim(), 'hex');
  if (existing !== undefined) log.warn({ file: path }, 'replaced an unreadable cursor key: earlier cursors stop working');
  const key = randomBytes(32);
  await writeFileDurable(path, `${key.toString('hex')}\n`, { fs, mode: 0o600 });
  return key;
}

class FileEventStore implements EventStore {
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    readonly dir: string,
    readonly cursorKey: Buffer,
    readonly clock: Clock,
    readonly problems: OpenProblems,
    private readonly index: EventIndex,
    private readonly log: EventLog,
    private readonly bulkThreshold: number,
  ) {}

  get size(): number {
    return this.index.size;
  }

  put(events: readonly EncodedEvent[]): Promise<PutOutcome> {
    if (this.closed) return Promise.reject(this.closedError());
    const run = this.writing.then(() => this.append(events));
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async append(events: readonly EncodedEvent[]): Promise<PutOutcome> {
    if (events.length === 0) return { created: 0, replaced: 0 };
    const spans = await this.log.append(events.map((event) => event.text));
    const bulk = events.length > this.bulkThreshold;
    if (bulk) this.index.beginBulk();
    let created = 0;
    events.forEach((event, i) => {
      const span = spans[i] as LogSpan;
      if (this.index.upsert(event.fields, span.offset, span.length) === 'created') created++;
    });
    if (bulk) this.index.endBulk();
    return { created, replaced: events.length - created };
  }

  async query(request: PageRequest): Promise<StorePage> {
    this.ensureOpen();
    const page = queryIndex(this.index, request);
    const texts = this.log.read(page.slots.map((slot) => this.spanOf(slot)));
    const lastSlot = page.slots[page.slots.length - 1];
    return {
      texts,
      last: lastSlot === undefined ? undefined : this.keyed(lastSlot),
      next: page.next === undefined ? undefined : this.keyed(page.next),
      total: page.total,
    };
  }

  async get(id: string): Promise<Buffer | undefined> {
    this.ensureOpen();
    const parsed = parseEncodedEventId(id);
    if (!parsed) return undefined;
    const slot = this.index.ids.find(parsed.startTime, parsed.words.hi, parsed.words.lo);
    if (slot === undefined) return undefined;
    const [text] = this.log.read([this.spanOf(slot)]);
    return text;
  }

  async findByEventId(eventId: string): Promise<Buffer | undefined> {
    this.ensureOpen();
    const words = parseEventIdDigits(eventId);
    if (!words) return undefined;
    const { hi, lo, start } = this.index.columns;
    let found = -1;
    for (let slot = 0; slot < this.index.size; slot++) {
      if (hi[slot] === words.hi && lo[slot] === words.lo && (found < 0 || (start[slot] ?? 0) > (start[found] ?? 0))) found = slot;
    }
    return found < 0 ? undefined : this.log.read([this.spanOf(found)])[0];
  }

  entityIds(): string[] {
    const ids: string[] = [];
    for (let code = 1; code < this.index.entities.size; code++) {
      const name = this.index.entities.nameOf(code);
      if (name !== undefined && (this.index.entityList(code)?.length ?? 0) > 0) ids.push(name);
    }
    return ids;
  }

  async newestEventOf(entityId: string): Promise<EntitySighting | undefined> {
    const code = this.index.entities.find(entityId);
    const list = code === undefined ? undefined : this.index.entityList(code);
    if (!list || list.length === 0) return undefined;
    const slot = list.at(list.length - 1);
    const [text] = this.log.read([this.spanOf(slot)]);
    const end = this.index.columns.end[slot] ?? Number.NEGATIVE_INFINITY;
    return {
      entityId,
      text: text as Buffer,
      startTime: this.index.columns.start[slot] ?? 0,
      endTime: end === Number.NEGATIVE_INFINITY ? undefined : end,
    };
  }

  async openEvents(): Promise<Buffer[]> {
    this.ensureOpen();
    const { end } = this.index.columns;
    const spans: LogSpan[] = [];
    for (let slot = 0; slot < this.index.size; slot++) if (end[slot] === Number.NEGATIVE_INFINITY) spans.push(this.spanOf(slot));
    return this.log.read(spans);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writing;
    await this.log.close();
  }

  private spanOf(slot: number): LogSpan {
    const c = this.index.columns;
    return { offset: c.offset[slot] ?? 0, length: c.length[slot] ?? 0 };
  }

  private keyed(slot: number): KeyedEvent {
    const c = this.index.columns;
    const key = { start: c.start[slot] ?? 0, hi: c.hi[slot] ?? 0, lo: c.lo[slot] ?? 0 };
    return { key, eventId: digitsOf(key.hi, key.lo) };
  }

  private ensureOpen(): void {
    if (this.closed) throw this.closedError();
  }

  private closedError(): StoreError {
    return new StoreError('STORE_CLOSED', `the event store in ${this.dir} is closed`);
  }
}
