import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { fsyncDir, fsyncFile, mkdirDurable } from '../../lib/durable-file.js';
import { ignoreMissing } from '../../lib/fs-errors.js';
import type { FileHandleLike, FsLayer } from '../../lib/fs-layer.js';
import { pushAll } from '../../lib/push-all.js';

/** One write as the journal holds it: the whole file of the new version (UTF-8), or null for a removal. */
export interface JournalRecord {
  readonly id: string;
  readonly contents: Uint8Array | null;
}

const GENERATION_FILE = /^(\d+)\.wal$/;
const fileOf = (dir: string, generation: number): string => join(dir, `${String(generation).padStart(10, '0')}.wal`);
const NEWLINE = 0x0a;

/**
 * One record as written: a header line `<crc32, 8 hex> <contents bytes, or - for a removal> <id>` then the contents
 * as they are, then a newline. The contents are not escaped again (re-stringifying a 20 KB dashboard cost as much as
 * serialising it); the checksum covers the id and the contents, so a torn or stale tail never passes for a record.
 */
export interface Frame {
  readonly header: string;
  readonly contents: Uint8Array | null;
  /** The whole frame's size. */
  readonly bytes: number;
}

export function frameOf({ id, contents }: JournalRecord): Frame {
  const header = `${checksum(id, contents)} ${contents === null ? '-' : contents.length} ${id}\n`;
  return { header, contents, bytes: Buffer.byteLength(header) + (contents === null ? 0 : contents.length + 1) };
}

/** Writes the frames one after another into `target`, which holds at least their bytes; returns the bytes written. */
export function writeFrames(target: Buffer, frames: readonly Frame[]): number {
  let at = 0;
  for (const { header, contents } of frames) {
    at += target.write(header, at);
    if (contents === null) continue;
    target.set(contents, at);
    at += contents.length;
    target[at++] = NEWLINE;
  }
  return at;
}

function checksum(id: string, contents: Uint8Array | null): string {
  const crc = crc32(contents ?? '-', crc32(`${id}\n`));
  return crc.toString(16).padStart(8, '0');
}

const HEADER = /^([0-9a-f]{8}) (-|\d+) (\S+)$/;

/**
 * The records of one generation file, in order, up to the first that is not whole and intact: a batch that was
 * being written when the process died was never acknowledged, so whatever of it reached the disk is dropped.
 */
export function parseGeneration(bytes: Buffer): { records: JournalRecord[]; torn: boolean } {
  const records: JournalRecord[] = [];
  let start = 0;
  while (start < bytes.length) {
    const headerEnd = bytes.indexOf(NEWLINE, start);
    const header = HEADER.exec(bytes.toString('latin1', start, headerEnd === -1 ? start : headerEnd));
    if (headerEnd === -1 || !header) return { records, torn: true };
    const [, crc, size = '', id = ''] = header;
    if (size === '-') {
      if (crc !== checksum(id, null)) return { records, torn: true };
      records.push({ id, contents: null });
      start = headerEnd + 1;
      continue;
    }
    const textEnd = headerEnd + 1 + Number(size);
    const contents = bytes.subarray(headerEnd + 1, textEnd);
    if (textEnd >= bytes.length || bytes[textEnd] !== NEWLINE || crc !== checksum(id, contents)) return { records, torn: true };
    records.push({ id, contents });
    start = textEnd + 1;
  }
  return { records, torn: false };
}

/** The generation files of a journal dir, oldest first. */
export async function listGenerations(dir: string): Promise<number[]> {
  const names = await readdir(dir).catch((error: unknown) => (ignoreMissing(error), [] as string[]));
  return names.flatMap((name) => {
    const n = GENERATION_FILE.exec(name)?.[1];
    return n === undefined ? [] : [Number(n)];
  }).sort((a, b) => a - b);
}

/** Every intact record of every generation, oldest first, and whether any generation ended in a torn line. */
export async function readJournal(dir: string): Promise<{ records: JournalRecord[]; generations: number[]; torn: boolean }> {
  const generations = await listGenerations(dir);
  const records: JournalRecord[] = [];
  let torn = false;
  for (const generation of generations) {
    const parsed = parseGeneration(await readFile(fileOf(dir, generation)));
    pushAll(records, parsed.records);
    torn ||= parsed.torn;
  }
  return { records, generations, torn };
}

/** A generation being dropped: renamed out of replay's sight before its blocks are given back. */
const DROPPED_SUFFIX = '.dropped';

/**
 * Removes generation files (their records are materialised or appended again) and makes the removal durable. They
 * leave replay's sight first, by a rename made durable at once: a file cut from its end (shrinkThenUnlink) and
 * replayed would bring back its older records without the newer ones it lost.
 */
export async function dropGenerations(dir: string, generations: readonly number[], fs: FsLayer): Promise<void> {
  if (generations.length === 0) return;
  for (const generation of generations) await fs.rename(fileOf(dir, generation), `${fileOf(dir, generation)}${DROPPED_SUFFIX}`).catch(ignoreMissing);
  await fsyncDir(dir, fs);
  for (const generation of generations) await shrinkThenUnlink(`${fileOf(dir, generation)}${DROPPED_SUFFIX}`, fs);
  await fsyncDir(dir, fs);
}

/** Finishes what a crash left of dropping generations (see dropGenerations): files replay no longer reads. */
export async function dropLeftovers(dir: string, fs: FsLayer): Promise<void> {
  const names = await readdir(dir).catch((error: unknown) => (ignoreMissing(error), [] as string[]));
  const leftovers = names.filter((name) => name.endsWith(DROPPED_SUFFIX));
  for (const name of leftovers) await shrinkThenUnlink(join(dir, name), fs);
  if (leftovers.length > 0) await fsyncDir(dir, fs);
}

/** Bytes a dropped generation file gives back per step (see shrinkThenUnlink). */
const SHRINK_STEP_BYTES = 8 * 1024 * 1024;

/**
 * Gives a file's blocks back a step at a time from its end, each step made durable before the next, then unlinks
 * it. Unlinking a 160 MB generation at once held the filesystem's own journal for ~50 ms (ext4 discards the freed
 * blocks as it commits them, with `-o discard`), and every commit waited on it: the slowest commits of a PUT burst,
 * up to 30 ms, fell in those 50 ms (bench `put`, an instrumented build). A step is one small wait, and the commits'
 * own syncs go between the steps.
 */
async function shrinkThenUnlink(path: string, fs: FsLayer): Promise<void> {
  const size = await stat(path).then(({ size: bytes }) => bytes, (error: unknown) => (ignoreMissing(error), 0));
  for (let length = size - SHRINK_STEP_BYTES; length > 0; length -= SHRINK_STEP_BYTES) {
    await fs.truncate(path, length);
    await fsyncFile(path, fs);
  }
  await fs.unlink(path).catch(ignoreMissing);
}

/** A batch larger than this (a few huge bodies at once) gets a buffer of its own rather than growing the slab. */
const SLAB_BYTES = 1024 * 1024;

/**
 * Bytes of records appended again per commit: as many as the commit's new writes, so a commit that carries them takes
 * at most about twice as long and the relog keeps pace with the writers; at least this many, so it also goes on (back
 * to back, no writer waiting) when the writes stop.
 */
const MIN_RELOG_BYTES = 64 * 1024;

interface Relogging {
  next(): JournalRecord | undefined;
  resolve(): void;
  reject(error: unknown): void;
}

interface Pending {
  readonly record: JournalRecord;
  readonly frame: Frame;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * An append-only write-ahead journal with group commit: every record appended while a commit runs goes into the
 * next one, whose single synchronous write acknowledges the whole batch. `onDurable` sees each batch's records
 * synchronously before any of their appends resolve, so whoever tracks "durable but not yet materialised" never
 * misses one. Generations let the materialiser retire the records it has written out: `rotate` starts a new file
 * at a batch boundary, and the old ones are dropped once their records are in the per-dashboard files, or once the
 * latest of them are appended again (`relog`).
 */
export class WriteJournal {
  private pending: Pending[] = [];
  private scheduled = false;
  /** Commits and rotations run one at a time, in order. */
  private chain: Promise<void> = Promise.resolve();
  /** Bytes in generations not yet dropped: what a restart would replay. */
  private live = 0;
  /** Bytes of the current generation's file, all of them whole batches that were acknowledged. */
  private fileBytes = 0;
  /**
   * Every batch up to SLAB_BYTES is encoded into this one buffer (commits run one at a time, so it is free again
   * when the next starts). A new buffer per commit fragmented the daemon's malloc heap once commits were single
   * synchronous writes: 10,000 dashboards held ~530 MB RSS instead of ~385 MB (bench `daemon-scale`); and it was
   * external memory for V8 to count (bench `put`, same sitting: p99 22.4 → 19.8 ms with this and the O_SYNC file).
   */
  private readonly slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  /** The records being appended again (see `relog`), a chunk at the front of each commit. */
  private relogging: Relogging | undefined;

  private constructor(
    private readonly dir: string,
    private readonly fs: FsLayer,
    private readonly onDurable: (records: readonly JournalRecord[]) => void,
    private generation: number,
    /** The current generation's file, opened by the first commit that needs it (so a failed open fails a batch). */
    private handle: FileHandleLike | undefined,
  ) {}

  /** Opens a new generation after `last` (the replayed ones, already dropped or about to be). */
  static async open(dir: string, fs: FsLayer, last: number, onDurable: (records: readonly JournalRecord[]) => void): Promise<WriteJournal> {
    await mkdirDurable(dir, fs);
    const journal = new WriteJournal(dir, fs, onDurable, last + 1, undefined);
    journal.handle = await journal.createFile();
    return journal;
  }

  private async createFile(): Promise<FileHandleLike> {
    // 'as' is O_APPEND | O_SYNC: a write returns once its bytes are on disk, so a commit is one call on one pool
    // thread. A write then an fsync waited twice for a pool thread and twice for the event loop to take the result
    // (bench `put`: commit mean 2.3 → 1.5 ms).
    const handle = await this.fs.open(fileOf(this.dir, this.generation), 'as', 0o644);
    // The new file's directory entry must be durable before any record in it is acknowledged.
    await fsyncDir(this.dir, this.fs).catch(async (error: unknown) => {
      await handle.close();
      throw error;
    });
    return handle;
  }

  get liveBytes(): number {
    return this.live;
  }

  /** Resolves once the record is on disk (written synchronously with its batch). */
  append(record: JournalRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const frame = frameOf(record);
      this.live += frame.bytes;
      this.pending.push({ record, frame, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    void this.serial(() => this.commit());
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.chain.then(step);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async commit(): Promise<void> {
    this.scheduled = false;
    const relogging = this.relogging;
    const batch = this.pending;
    this.pending = [];
    // First, so that a write pending in this same batch lands after the record it replaces.
    const relogged = relogging ? this.relogChunk(relogging, Math.max(MIN_RELOG_BYTES, batch.reduce((n, p) => n + p.frame.bytes, 0))) : { frames: [], done: false };
    const frames = [...relogged.frames, ...batch.map((p) => p.frame)];
    try {
      this.handle ??= await this.createFile();
      if (frames.length > 0) {
        const bytes = this.encode(frames);
        await this.handle.write(bytes);
        this.fileBytes += bytes.length;
      }
    } catch (error) {
      // Before anyone is told: what part of the batch reached the file must not be replayed.
      await this.cutFailedBatch();
      // Nor counted toward the journal's bound: the batch was refused. Should the cut have failed too, whole frames
      // left in the file may come back at replay, as a write whose answer was lost would; the bound ignores that.
      this.live -= frames.reduce((n, frame) => n + frame.bytes, 0);
      for (const p of batch) p.reject(error);
      if (relogging) {
        this.relogging = undefined;
        relogging.reject(error);
      }
      // Later batches go to a fresh generation, so replay never stops short of them should the cut have failed.
      await this.switchFile();
      return;
    }
    this.onDurable(batch.map((p) => p.record));
    for (const p of batch) p.resolve();
    if (!relogging) return;
    if (!relogged.done) {
      this.schedule();
      return;
    }
    this.relogging = undefined;
    relogging.resolve();
  }

  /** The next records to append again, about `limit` bytes; done when `next` has none left. */
  private relogChunk({ next }: Relogging, limit: number): { frames: Frame[]; done: boolean } {
    const frames: Frame[] = [];
    let bytes = 0;
    while (bytes < limit) {
      const record = next();
      if (!record) return { frames, done: true };
      const frame = frameOf(record);
      frames.push(frame);
      bytes += frame.bytes;
      this.live += frame.bytes;
    }
    return { frames, done: false };
  }

  private encode(frames: readonly Frame[]): Uint8Array {
    const size = frames.reduce((n, frame) => n + frame.bytes, 0);
    const target = size <= this.slab.length ? this.slab : Buffer.allocUnsafe(size);
    return target.subarray(0, writeFrames(target, frames));
  }

  /**
   * Takes the file back to its last whole batch. A batch that failed part-way (a full disk takes what fits) may have
   * put some of its records on disk whole, and replay applies every whole record: a write answered 503 came back
   * after a restart. Shrinking a file needs no free space; should it fail all the same (an I/O error), the records
   * stay, as before this cut existed.
   */
  private async cutFailedBatch(): Promise<void> {
    if (this.handle === undefined) return;
    try {
      await this.fs.truncate(fileOf(this.dir, this.generation), this.fileBytes);
      await this.handle.sync();
    } catch {
      // Reported through the batch's own error; the fresh generation after it keeps replay whole.
    }
  }

  /** Moves to the next generation; its file is created by the next commit. */
  private async switchFile(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    this.fileBytes = 0;
    this.generation += 1;
    await handle?.close().catch(() => undefined);
  }

  /**
   * Starts a new generation at a batch boundary and, at that same instant, calls `take`: everything `take` sees
   * as durable is in the generations returned, and nothing appended later is.
   */
  rotate<T>(take: () => T): Promise<{ taken: T; retired: number[]; retiredBytes: number }> {
    return new Promise((resolve, reject) => {
      this.serial(async () => {
        const retired = (await listGenerations(this.dir)).filter((g) => g <= this.generation);
        const retiredBytes = this.live - this.pending.reduce((n, p) => n + p.frame.bytes, 0);
        await this.switchFile();
        resolve({ taken: take(), retired, retiredBytes });
      }).catch(reject);
    });
  }

  /**
   * Appends again the records `next` hands out until it returns undefined, a chunk (see MIN_RELOG_BYTES) at the front
   * of each commit (one is started if no write comes), and resolves once every one is durable. `next` is asked as
   * each commit forms, so it can leave out a record whose id a durable write has replaced since; a write still
   * pending lands after it. Carried over this way, the latest records of the generations a rotation closed need
   * no file of their own and no sync beside the commits: the commits' own sequential writes take them.
   */
  relog(next: () => JournalRecord | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.relogging) throw new Error('the journal is already appending records again');
      this.relogging = { next, resolve, reject };
      this.schedule();
    });
  }

  /** Drops generations whose records are all materialised, or appended again since. */
  async retire(generations: readonly number[], bytes: number): Promise<void> {
    await dropGenerations(this.dir, generations, this.fs);
    this.live -= bytes;
  }

  /**
   * Closes the file once every queued commit has run. `drop` when the caller materialised and retired everything:
   * the last, empty generation goes too; otherwise every generation stays for the next start to replay.
   */
  async close(drop: boolean): Promise<void> {
    await this.serial(async () => {
      await this.handle?.close();
      if (drop) await dropGenerations(this.dir, [this.generation], this.fs);
    });
  }
}
