import { randomBytes } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { systemClock, type Clock } from '../../lib/clock.js';
import { writeFileDurable } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import { silentLogger, type Logger } from '../../lib/logger.js';
import { EventIndex } from './event-index.js';
import { EventLog, prepareEventsDir, EVENT_LOG_FILE, scanEventLog } from './event-log.js';
import { FileEventStore } from './file-event-store.js';
import { readIndexSnapshot } from './index-snapshot.js';
import type { EventStore } from './event-store.js';
import { OpenProblems } from './open-problems.js';

export const CURSOR_KEY_FILE = 'cursor.key';
/** Batches larger than this are linked into the index in one pass instead of one insert each. */
const BULK_THRESHOLD = 256;

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

