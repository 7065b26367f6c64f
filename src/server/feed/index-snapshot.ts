import { createHash } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileDurable } from '../../lib/durable-file.js';
import type { FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import type { ColumnArray } from './event-columns.js';
import { EventIndex } from './event-index.js';
import { EVENT_LOG_FILE } from './event-log.js';

export const INDEX_SNAPSHOT_FILE = 'index.snapshot';

/** How much of the log a snapshot stands for: its first `bytes` bytes, which hold `lines` lines. */
export interface LogCoverage {
  readonly bytes: number;
  readonly lines: number;
}

const TAIL_BYTES = 4096;
const count = z.number().int().min(0);
const Header = z.object({
  format: z.literal('dashcd-events-index'),
  version: z.literal(1),
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
 * Writes the index as `index.snapshot`: a JSON header line, then the columns, the global order and the id table as
 * raw little-endian arrays. The log is append-only, so a snapshot of its first N bytes stays true for ever; the next
 * start loads it and scans only the lines after N (a restart over a million events in well under a second). It is
 * only a cache: a missing, damaged or foreign snapshot means a full scan, never wrong answers.
 */
export async function writeIndexSnapshot(dir: string, index: EventIndex, coverage: LogCoverage, fs: FsLayer): Promise<void> {
  const state = index.state();
  const sections = [...state.columns.map((column) => bytesOf(column, state.count)), bytesOf(state.order, state.count), bytesOf(state.ids, state.ids.length)];
  const header: Header = {
    format: 'dashcd-events-index',
    version: 1,
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
  const data = await readFile(path).catch(() => undefined);
  if (!data) return undefined;
  const rejected = (reason: string): undefined => {
    log.warn({ file: path, reason }, 'ignored the index snapshot: scanning the whole log');
    return undefined;
  };
  const newline = data.indexOf(0x0a);
  let header: Header;
  try {
    header = Header.parse(JSON.parse(data.toString('utf8', 0, Math.max(0, newline))));
  } catch {
    return rejected('unreadable header');
  }
  if (data.length !== newline + 1 + header.bodyBytes) return rejected('wrong length');
  const tail = await tailHash(join(dir, EVENT_LOG_FILE), header.coveredBytes).catch(() => undefined);
  if (tail !== header.tailSha256) return rejected('the log does not match the snapshot');
  const index = new EventIndex();
  const body = data.subarray(newline + 1);
  let offset = 0;
  const take = <T extends ColumnArray>(make: new (length: number) => T, length: number): T => {
    const array = new make(length);
    const bytes = length * array.BYTES_PER_ELEMENT;
    new Uint8Array(array.buffer, array.byteOffset, bytes).set(body.subarray(offset, offset + bytes));
    offset += bytes;
    return array;
  };
  const columns = index.columns.arrays().map((column) => take(column.constructor as new (length: number) => ColumnArray, header.count));
  const order = take(Uint32Array, header.count);
  const ids = take(Int32Array, header.idTableSize);
  index.restore({ count: header.count, columns, order, ids, types: header.types, entities: header.entities });
  return { index, coverage: { bytes: header.coveredBytes, lines: header.coveredLines } };
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
