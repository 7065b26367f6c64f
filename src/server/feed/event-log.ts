import { open, readdir, stat, truncate, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { appendDurable, fsyncDir, mkdirDurable, TEMP_MARKER } from '../../lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { StoreError } from '../store/store-error.js';
import type { EventFields } from './event-fields.js';
import { fieldsOfLine } from './event-record.js';
import { SpanReader, type LogSpan } from './span-reader.js';

export const EVENT_LOG_FILE = 'events.log';
const NEWLINE = 0x0a;
const SCAN_CHUNK = 8 << 20;

export interface ScanOutcome {
  /** Lines in the whole log (damaged ones included), counting those before `from`. */
  readonly lines: number;
  /** Log size after the scan (a torn tail cut off). */
  readonly bytes: number;
  readonly records: number;
  readonly damagedLines: number;
  readonly truncatedBytes: number;
}

/** Where a scan starts: after the part of the log an index snapshot already covers. */
export interface ScanStart {
  readonly bytes: number;
  readonly lines: number;
}

/**
 * Reads the log once from `start`, calling `onRecord` for each event line in file order. A last line without its
 * newline is the remains of a write that never completed (it was not acknowledged): it is cut off and logged. A
 * complete line that is not an event is logged and skipped, never served.
 */
export async function scanEventLog(
  path: string,
  log: Logger,
  onRecord: (fields: EventFields, span: LogSpan) => void,
  start: ScanStart = { bytes: 0, lines: 0 },
): Promise<ScanOutcome> {
  const handle = await open(path, 'a+');
  let chunk: Buffer = Buffer.allocUnsafe(SCAN_CHUNK);
  let fileOffset = start.bytes;
  let carry = 0;
  let lineNumber = start.lines;
  let records = 0;
  let damagedLines = 0;
  try {
    for (;;) {
      if (carry === chunk.length) chunk = grown(chunk);
      const { bytesRead } = await handle.read(chunk, carry, chunk.length - carry, fileOffset + carry);
      if (bytesRead === 0) break;
      const filled = carry + bytesRead;
      let lineStart = 0;
      for (let nl = chunk.indexOf(NEWLINE, carry); nl >= 0 && nl < filled; nl = chunk.indexOf(NEWLINE, lineStart)) {
        lineNumber++;
        const fields = fieldsOfLine(chunk, lineStart, nl);
        if (fields) {
          onRecord(fields, { offset: fileOffset + lineStart, length: nl - lineStart });
          records++;
        } else if (nl > lineStart) {
          damagedLines++;
          log.warn({ file: path, line: lineNumber, offset: fileOffset + lineStart }, 'skipped a damaged event line');
        }
        lineStart = nl + 1;
      }
      chunk.copy(chunk, 0, lineStart, filled);
      fileOffset += lineStart;
      carry = filled - lineStart;
    }
  } finally {
    await handle.close();
  }
  if (carry > 0) await cutTornTail(path, fileOffset, carry, log);
  return { lines: lineNumber, bytes: fileOffset, records, damagedLines, truncatedBytes: carry };
}

function grown(chunk: Buffer): Buffer {
  const next = Buffer.allocUnsafe(chunk.length * 2);
  chunk.copy(next);
  return next;
}

async function cutTornTail(path: string, keep: number, dropped: number, log: Logger): Promise<void> {
  await truncate(path, keep);
  const handle = await open(path, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  log.warn({ file: path, keptBytes: keep, droppedBytes: dropped }, 'cut off an incomplete last event line');
}

/**
 * The append-only event log: one event text per line, a later line with the same id replacing an earlier one.
 * Appends are durable per batch (write + fsync) before they are reported; reads are positioned reads of spans the
 * index points at. One writer at a time (appends are serialised by the store).
 */
export class EventLog {
  private readonly spans: SpanReader;

  private constructor(
    readonly path: string,
    private size: number,
    private readonly reader: FileHandle,
    private readonly fs: FsLayer,
  ) {
    this.spans = new SpanReader(() => reader.fd, path);
  }

  /** Opens an existing (already scanned) log file for appends and reads. */
  static async open(path: string, fs: FsLayer = nodeFs): Promise<EventLog> {
    const { size } = await stat(path);
    return new EventLog(path, size, await open(path, 'r'), fs);
  }

  get bytes(): number {
    return this.size;
  }

  /** Appends the texts as lines and fsyncs; resolves with where each landed. */
  async append(texts: readonly string[]): Promise<LogSpan[]> {
    const spans: LogSpan[] = [];
    let offset = this.size;
    for (const text of texts) {
      const length = Buffer.byteLength(text, 'utf8');
      spans.push({ offset, length });
      offset += length + 1;
    }
    const bytes = Buffer.from(texts.length === 0 ? '' : `${texts.join('\n')}\n`, 'utf8');
    try {
      await appendDurable(this.path, bytes, { fs: this.fs });
    } catch (error) {
      await this.rollBack();
      throw new StoreError('STORE_IO', `could not append to ${this.path}: ${(error as Error).message}`, { cause: error });
    }
    this.size = offset;
    return spans;
  }

  /** A failed append may have written part of a batch: cut the file back so no half line stays behind. */
  private async rollBack(): Promise<void> {
    await truncate(this.path, this.size).catch(() => undefined);
  }

  /** Reads spans (see SpanReader): one buffer per call, neighbouring spans fetched with one read. */
  read(spans: readonly LogSpan[]): Buffer[] {
    return this.spans.read(spans);
  }

  /** Reads each span into `target` at its place (see SpanReader.readInto). */
  readInto(spans: readonly LogSpan[], target: Buffer, places: readonly number[], scratchAt?: number): void {
    this.spans.readInto(spans, target, places, scratchAt);
  }

  async close(): Promise<void> {
    await this.reader.close();
  }
}

/**
 * Creates the events directory when it is missing and removes temp files an interrupted atomic write left behind
 * (of the cursor key or the open-problems file; the log itself is only ever appended to).
 */
export async function prepareEventsDir(dir: string, fs: FsLayer, log: Logger): Promise<void> {
  await mkdirDurable(dir, fs);
  const leftovers = (await readdir(dir)).filter((name) => name.includes(TEMP_MARKER));
  for (const name of leftovers) {
    await fs.unlink(join(dir, name));
    log.warn({ file: join(dir, name) }, 'removed a temp file left by an interrupted write');
  }
  if (leftovers.length > 0) await fsyncDir(dir, fs);
}
