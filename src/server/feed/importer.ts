import { silentLogger, type Logger } from '../../lib/logger.js';
import { encodeEvent, type EncodedEvent, type EncodeResult } from './event-record.js';
import { importRecords, type RecordPlace } from './import-records.js';
import { openEventStore } from './open-event-store.js';

export interface BadLine {
  readonly place: RecordPlace;
  readonly problems: readonly string[];
}

export interface ImportOutcome {
  /** Lines read, blank ones too; for an events answer, the elements of its `events`. */
  readonly lines: number;
  /** Events new to the store. */
  readonly created: number;
  /** Lines that replaced an event stored earlier (or earlier in the file). */
  readonly replaced: number;
  readonly badLines: number;
  readonly storeSize: number;
}

export interface ImportOptions {
  readonly file: string;
  readonly eventsDir: string;
  readonly log?: Logger;
  /** Told about each line that is skipped. */
  readonly onBadLine?: (bad: BadLine) => void;
  readonly batchSize?: number;
}

/** Imports are appended in batches this large: one fsync each; small enough that batches die young (cheap GC). */
const DEFAULT_BATCH = 5_000;
/** The real service refuses bodies over 1 MB; a longer line is not an event anyone sent. */
const MAX_LINE_BYTES = 1024 * 1024;

/**
 * Loads a JSONL file of EventRestEntry objects, or an events API answer (`{"events":[…],…}`, see importRecords),
 * into the event store in `eventsDir`, in file order: a later event with the same `id` replaces the earlier one (how
 * an open event becomes closed). One that is not a valid event is reported through `onBadLine` and skipped; the
 * rest is imported. The caller must own the data dir: the store has one writer.
 */
export async function importEvents({ file, eventsDir, log = silentLogger(), onBadLine, batchSize = DEFAULT_BATCH }: ImportOptions): Promise<ImportOutcome> {
  const store = await openEventStore({ dir: eventsDir, log });
  let lines = 0;
  let created = 0;
  let replaced = 0;
  let badLines = 0;
  let batch: EncodedEvent[] = [];
  // One batch is written (and fsynced) while the next one is parsed; at most two are in memory.
  let writing: Promise<void> = Promise.resolve();
  const flush = async (): Promise<void> => {
    await writing;
    const put = store.put(batch);
    batch = [];
    writing = put.then((outcome) => {
      created += outcome.created;
      replaced += outcome.replaced;
    });
  };
  try {
    for await (const record of importRecords(file)) {
      lines++;
      if (record.text.trim() === '') continue;
      const result = encodeLine(record.text);
      if (!result.ok) {
        badLines++;
        onBadLine?.({ place: record.place, problems: result.problems });
        continue;
      }
      batch.push(result.event);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    await writing;
    return { lines, created, replaced, badLines, storeSize: store.size };
  } finally {
    await store.close();
  }
}

/**
 * One line → an event. A line without `id` but with `eventId` and `startTime` gets `id` from the eventId digits as
 * written in the line (JSON.parse would round them), the first `"eventId":` member found.
 */
export function encodeLine(line: string): EncodeResult {
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) return { ok: false, problems: ['line is longer than 1 MB'] };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return { ok: false, problems: [`not JSON: ${(error as Error).message}`] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problems: ['not a JSON object'] };
  }
  const event = value as Record<string, unknown>;
  if (event['id'] === undefined && typeof event['startTime'] === 'number') {
    const digits = /"eventId"\s*:\s*(-?[0-9]+)/.exec(line)?.[1];
    if (digits !== undefined) return encodeEvent({ ...event, id: `${digits}_${event['startTime']}` });
  }
  return encodeEvent(event);
}
