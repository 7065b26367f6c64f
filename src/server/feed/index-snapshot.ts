import { createHash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurable } from '../../lib/durable-file.js';
import type { FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { errorMessage } from '../../lib/error-message.js';
import { COLUMN_BYTES_PER_EVENT, COLUMN_TYPES, type ColumnArray } from './event-columns.js';
import { EventIndex } from './event-index.js';
import { EVENT_LOG_FILE } from './event-log.js';

export const INDEX_SNAPSHOT_FILE = 'index.snapshot';

/** How much of the log a snapshot stands for: its first `bytes` bytes, which hold `lines` lines. */
export interface LogCoverage {
  readonly bytes: number;
  readonly lines: number;
}

const TAIL_BYTES = 4096;
/** 2 added the posting lists. A snapshot of another version is ignored: the log is scanned and a new one written. */
const SNAPSHOT_VERSION = 2;
const count = z.number().int().min(0);
const Header = z.object({
  format: z.literal('dashcd-events-index'),
  version: z.literal(SNAPSHOT_VERSION),
  coveredBytes: count,
  coveredLines: count,
  /** SHA-256 of the last 4 KiB the snapshot covers: a log replaced or rewritten under it is noticed. */
  tailSha256: z.string(),
  count,
  idTableSize: count,
  bodyBytes: count,
  types: z.array(z.string()),
  entities: z.array(z.string()),
});
type Header = z.infer<typeof Header>;

/**
 * Writes the index as `index.snapshot`: a JSON header line, then the columns, the global order, the id table and
 * the posting lists (each kind as its lists' lengths by code, then their slots one list after another) as raw
 * little-endian arrays. The log is append-only, so a snapshot of its first N bytes stays true for ever; the next
 * start loads it and scans only the lines after N (a restart over a million events in well under a second). It is
 * only a cache: a missing, damaged or foreign snapshot means a full scan, never wrong answers.
 */
export async function writeIndexSnapshot(dir: string, index: EventIndex, coverage: LogCoverage, fs: FsLayer): Promise<void> {
  const state = index.state();
  const sections = [
    ...state.columns.map((column) => bytesOf(column, state.count)),
    bytesOf(state.order, state.count),
    bytesOf(state.ids, state.ids.length),
    ...listSections(state.typeLists),
    ...listSections(state.entityLists),
  ];
  const header: Header = {
    format: 'dashcd-events-index',
    version: SNAPSHOT_VERSION,
    coveredBytes: coverage.bytes,
    coveredLines: coverage.lines,
    tailSha256: await tailHash(join(dir, EVENT_LOG_FILE), coverage.bytes),
    count: state.count,
    idTableSize: state.ids.length,
    bodyBytes: sections.reduce((sum, section) => sum + section.length, 0),
    types: [...state.types],
    entities: [...state.entities],
  };
  const data = Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), ...sections]);
  await writeFileDurable(join(dir, INDEX_SNAPSHOT_FILE), data, { fs });
}

/** The index as of the snapshot and how much of the log it covers; undefined (logged) when it cannot be trusted. */
export async function readIndexSnapshot(dir: string, log: Logger): Promise<{ index: EventIndex; coverage: LogCoverage } | undefined> {
  const path = join(dir, INDEX_SNAPSHOT_FILE);
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  const rejected = (reason: string): undefined => {
    log.warn({ file: path, reason }, 'ignored the index snapshot: scanning the whole log');
    return undefined;
  };
  try {
    const { size } = await handle.stat();
    const headerLine = await readHeaderLine(handle, size);
    let header: Header;
    try {
      header = Header.parse(JSON.parse(headerLine?.toString('utf8') ?? ''));
    } catch {
      return rejected('unreadable header');
    }
    const bodyStart = (headerLine?.length ?? 0) + 1;
    if (size !== bodyStart + header.bodyBytes) return rejected('wrong length');
    // Checked before any array is made: a damaged count must not become an allocation of gigabytes.
    if (header.bodyBytes !== sectionBytes(header)) return rejected('sections that do not add up to its length');
    const tail = await tailHash(join(dir, EVENT_LOG_FILE), header.coveredBytes).catch(() => undefined);
    if (tail !== header.tailSha256) return rejected('the log does not match the snapshot');
    // Each section is read straight into the array that keeps it: no second copy of tens of megabytes at start-up.
    const index = new EventIndex();
    const reads = new SectionReads(handle, bodyStart);
    const columns = COLUMN_TYPES.map((type): ColumnArray => reads.take(type, header.count));
    const order = reads.take(Uint32Array, header.count);
    const ids = reads.take(Int32Array, header.idTableSize);
    // Code 0 (no entity, say) has a list too: one more code than names.
    const typeSections = { lengths: reads.take(Uint32Array, header.types.length + 1), slots: reads.take(Uint32Array, header.count) };
    const entitySections = { lengths: reads.take(Uint32Array, header.entities.length + 1), slots: reads.take(Uint32Array, header.count) };
    await reads.done();
    const typeLists = postingLists(typeSections, header.count);
    const entityLists = typeLists && postingLists(entitySections, header.count);
    if (!typeLists || !entityLists) return rejected('posting lists that do not add up to the events');
    // Codes are positions in these lists: a name twice would shift every code after it.
    if (new Set(header.types).size !== header.types.length || new Set(header.entities).size !== header.entities.length) return rejected('a name listed twice');
    index.restore({ count: header.count, columns, order, ids, types: header.types, entities: header.entities, typeLists, entityLists });
    return { index, coverage: { bytes: header.coveredBytes, lines: header.coveredLines } };
  } catch (error) {
    // Only a cache: a snapshot that cannot be read is a full scan, never a server that cannot start.
    return rejected(`unreadable (${errorMessage(error)})`);
  } finally {
    await handle.close();
  }
}

/**
 * The snapshot's sections, each read into its own array, all at once in pieces of READ_PIECE_BYTES: the thread pool
 * copies them from the page cache side by side (one after another, 73 MB took ~40 ms of a start's wait here).
 */
class SectionReads {
  private position: number;
  private readonly pending: Promise<void>[] = [];

  constructor(private readonly handle: FileHandle, start: number) {
    this.position = start;
  }

  /** The next section's array; its contents are there once done() resolves. */
  take<T extends ColumnArray>(make: new (length: number) => T, length: number): T {
    const array = new make(length);
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let offset = 0; offset < bytes.length; offset += READ_PIECE_BYTES) {
      this.pending.push(readFully(this.handle, bytes.subarray(offset, offset + READ_PIECE_BYTES), this.position + offset));
    }
    this.position += bytes.length;
    return array;
  }

  async done(): Promise<void> {
    await Promise.all(this.pending);
  }
}

const READ_PIECE_BYTES = 4 * 1024 * 1024;

/** One kind's posting lists from its sections; undefined when they do not hold each of the `count` events once. */
function postingLists({ lengths, slots }: { lengths: Uint32Array; slots: Uint32Array }, count: number): Uint32Array[] | undefined {
  if (lengths.reduce((sum, length) => sum + length, 0) !== count) return undefined;
  // One indexed pass, no lookups: a slot past the events would read as an empty event rather than fail. (It runs
  // once per start, before V8 optimises: `for…of` over the typed array took 13 ms a million slots, this 3 ms.)
  for (let i = 0; i < slots.length; i++) if (slots[i]! >= count) return undefined;
  let start = 0;
  return Array.from(lengths, (length) => slots.subarray(start, (start += length)));
}

/** What the body of a snapshot with this header holds, section by section (see writeIndexSnapshot). */
function sectionBytes(header: Header): number {
  const u32 = Uint32Array.BYTES_PER_ELEMENT;
  // Per event: the columns, its place in the order, its place in one type list and one entity list.
  return header.count * (COLUMN_BYTES_PER_EVENT + 3 * u32) + header.idTableSize * Int32Array.BYTES_PER_ELEMENT + (header.types.length + 1 + header.entities.length + 1) * u32;
}

/** The snapshot's first line, without its newline; undefined when the file has none (or none in its first 64 MiB). */
async function readHeaderLine(handle: FileHandle, size: number): Promise<Buffer | undefined> {
  let chunk = Math.min(size, HEADER_CHUNK);
  for (;;) {
    const head = Buffer.alloc(chunk);
    await readFully(handle, head, 0);
    const newline = head.indexOf(0x0a);
    if (newline >= 0) return head.subarray(0, newline);
    if (chunk === size || chunk >= MAX_HEADER_BYTES) return undefined;
    chunk = Math.min(size, MAX_HEADER_BYTES, chunk * 4);
  }
}

const HEADER_CHUNK = 64 * 1024;
/** Type and entity names of a few million events fit many times over; past this the file is not a snapshot. */
const MAX_HEADER_BYTES = 64 * 1024 * 1024;

/** Fills `target` from the file at `position`; a file shorter than that is an error. */
async function readFully(handle: FileHandle, target: Uint8Array, position: number): Promise<void> {
  let done = 0;
  while (done < target.length) {
    const { bytesRead } = await handle.read(target, done, target.length - done, position + done);
    if (bytesRead === 0) throw new Error('the snapshot ended early');
    done += bytesRead;
  }
}

/** Every event is in exactly one list of a kind: the lengths by code, then the slots, `count` in all. */
function listSections(lists: readonly Uint32Array[]): Buffer[] {
  return [bytesOf(Uint32Array.from(lists, (list) => list.length), lists.length), ...lists.map((list) => bytesOf(list, list.length))];
}

function bytesOf(array: ColumnArray, length: number): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, length * array.BYTES_PER_ELEMENT);
}

/** SHA-256 of the `TAIL_BYTES` bytes before `end` in the log; rejects when the log is shorter than `end`. */
async function tailHash(logPath: string, end: number): Promise<string> {
  const start = Math.max(0, end - TAIL_BYTES);
  const buffer = Buffer.alloc(end - start);
  const handle = await open(logPath, 'r');
  try {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    if (bytesRead !== buffer.length) throw new Error('the log is shorter than the snapshot covers');
  } finally {
    await handle.close();
  }
  return createHash('sha256').update(buffer).digest('hex');
}
