import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import { writeFileDurable } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { EventIndex } from './event-index.js';
import { EventLog, prepareEventsDir, EVENT_LOG_FILE, scanEventLog } from './event-log.js';
import type { EncodedEvent } from './event-record.js';
import { FileEventStore } from './file-event-store.js';
import { readIndexSnapshot } from './index-snapshot.js';
import type { FeedKey, PageRequest } from './index-query.js';
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

/**
 * Opens (creating if needed) the store in `dir`: loads the index snapshot if one matches the log, scans the log
 * after it (all of it without one) cutting a torn last line, and links what it found into the index.
 */
export async function openEventStore(options: EventStoreOptions): Promise<EventStore> {
  const { dir, clock = systemClock, log = silentLogger(), fs = nodeFs, bulkThreshold = BULK_THRESHOLD } = options;
  const started = performance.now();
  await prepareEventsDir(dir, fs, log);
  const cursorKey = await loadCursorKey(dir, fs, log);
  const path = join(dir, EVENT_LOG_FILE);
  const snapshot = await readIndexSnapshot(dir, log);
  const index = snapshot?.index ?? new EventIndex();
  const from = { bytes: snapshot?.coverage.bytes ?? 0, lines: snapshot?.coverage.lines ?? 0 };
  // Canonical event lines are a few hundred bytes: sizing for the file avoids repeated growth during the scan.
  index.reserve(Math.ceil(Math.max(0, (await stat(path).then((s) => s.size, () => 0)) - from.bytes) / 384));
  index.beginBulk();
  const scan = await scanEventLog(path, log, (fields, span) => index.upsert(fields, span.offset, span.length), from);
  index.endBulk();
  const eventLog = await EventLog.open(path, fs);
  const problems = await OpenProblems.load(dir, log, fs);
  const ms = Math.round(performance.now() - started);
  log.info({ dir, events: index.size, fromSnapshot: from.bytes, scannedLines: scan.lines - from.lines, ms }, 'event store opened');
  return new FileEventStore({
    dir, cursorKey, clock, problems, index, log: eventLog, logger: log, fs, bulkThreshold, lines: scan.lines, snapshotBytes: from.bytes,
  });
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

