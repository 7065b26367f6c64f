import { open, stat, truncate, type FileHandle } from 'node:fs/promises';
import { appendDurable, mkdirDurable } from '../../lib/durable-file.js';
import { removeWriteLeftovers } from '../../lib/write-leftovers.js';
import { nodeFs, type FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { StoreError } from '../store/store-error.js';
import type { EventFields } from './event-fields.js';
import { fieldsOfLine } from './event-record.js';
import { SpanReader, type LogSpan } from './span-reader.js';

export const EVENT_LOG_FILE = 'events.log';
const NEWLINE = 0x0a;

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
  sizes: ChunkSizes = DEFAULT_CHUNK_SIZES,
): Promise<ScanOutcome> {
  const handle = await open(path, 'a+');
  const reads = new ReadAhead(handle, start.bytes, sizes);
  let fileOffset = start.bytes;
  let lineNumber = start.lines;
  let records = 0;
  let damagedLines = 0;
  let carry = 0;
  try {
    for (let chunk = await reads.next(); chunk !== undefined; chunk = await reads.next()) {
      const { buf, from, filled } = chunk;
      let lineStart = from;
      for (let nl = buf.indexOf(NEWLINE, from + carry); nl >= 0 && nl < filled; nl = buf.indexOf(NEWLINE, lineStart)) {
        lineNumber++;
        const fields = fieldsOfLine(buf, lineStart, nl);
        const offset = fileOffset + lineStart - from;
        if (fields) {
          onRecord(fields, { offset, length: nl - lineStart });
          records++;
        } else if (nl > lineStart) {
          damagedLines++;
          log.warn({ file: path, line: lineNumber, offset }, 'skipped a damaged event line');
        }
        lineStart = nl + 1;
      }
      fileOffset += lineStart - from;
      carry = filled - lineStart;
      reads.carryOver(lineStart, carry);
    }
  } finally {
    await reads.settled();
    await handle.close();
  }
  if (carry > 0) await cutTornTail(path, fileOffset, carry, log);
  return { lines: lineNumber, bytes: fileOffset, records, damagedLines, truncatedBytes: carry };
}

/** How much a scan reads at a time (tests make lines cross many chunks with small ones). */
export interface ChunkSizes {
  readonly chunk: number;
  /** Room in front of a chunk for the unfinished line of the chunk before; a longer line is joined by a copy instead. */
  readonly carryRoom: number;
}

const DEFAULT_CHUNK_SIZES: ChunkSizes = { chunk: 8 << 20, carryRoom: 64 << 10 };

interface ScanChunk {
  readonly buf: Buffer;
  /** Where the unfinished line carried over from the chunk before starts (then the chunk's own bytes). */
  readonly from: number;
  readonly filled: number;
}

/**
 * A file's bytes from `position` on in chunks, each read (on libuv's pool) while the one before is scanned here: over
 * a million events the scan otherwise waited ~100 ms for its reads. Two buffers take turns; the tail of one chunk that
 * holds an unfinished line (carryOver) goes in front of the next.
 */
class ReadAhead {
  private readonly buffers: readonly Buffer[];
  private turn = 0;
  private pending: Promise<number>;
  private carried: { buf: Buffer; at: number; length: number } | undefined;
  private lastChunk: Buffer | undefined;

  constructor(
    private readonly handle: FileHandle,
    private position: number,
    private readonly sizes: ChunkSizes,
  ) {
    this.buffers = [Buffer.allocUnsafe(sizes.carryRoom + sizes.chunk), Buffer.allocUnsafe(sizes.carryRoom + sizes.chunk)];
    this.pending = this.read(this.buffers[0] as Buffer);
  }

  /** The next chunk with the carried line in front, or undefined at the end of the file (the carry is left over). */
  async next(): Promise<ScanChunk | undefined> {
    const bytesRead = await this.pending;
    if (bytesRead === 0) return undefined;
    const own = this.buffers[this.turn] as Buffer;
    const carried = this.carried;
    let chunk: ScanChunk;
    const room = this.sizes.carryRoom;
    if (!carried || carried.length <= room) {
      const from = room - (carried?.length ?? 0);
      carried?.buf.copy(own, from, carried.at, carried.at + carried.length);
      chunk = { buf: own, from, filled: room + bytesRead };
    } else {
      const joined = Buffer.concat([carried.buf.subarray(carried.at, carried.at + carried.length), own.subarray(room, room + bytesRead)]);
      chunk = { buf: joined, from: 0, filled: joined.length };
    }
    this.lastChunk = chunk.buf;
    // The other buffer's bytes are all scanned or copied by now: the next read may fill it.
    this.turn = 1 - this.turn;
    this.pending = this.read(this.buffers[this.turn] as Buffer);
    return chunk;
  }

  /** The chunk just scanned ends in an unfinished line of `length` bytes at `at`: the next chunk starts with it. */
  carryOver(at: number, length: number): void {
    const buf = this.lastChunk;
    this.carried = length > 0 && buf ? { buf, at, length } : undefined;
  }

  /** Waits for the read in flight, so the file may be closed. */
  async settled(): Promise<void> {
    await this.pending.catch(() => 0);
  }

  private async read(into: Buffer): Promise<number> {
    const { bytesRead } = await this.handle.read(into, this.sizes.carryRoom, this.sizes.chunk, this.position);
    this.position += bytesRead;
    return bytesRead;
  }
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
  await removeWriteLeftovers(dir, log, fs);
}
