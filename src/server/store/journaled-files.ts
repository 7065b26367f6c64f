import { join } from 'node:path';
import { mapConcurrent } from '../../lib/concurrency.js';
import { DirSyncBarrier, mkdirDurable, writeFileDurable } from '../../lib/durable-file.js';
import { ignoreMissing } from '../../lib/fs-errors.js';
import type { FsLayer } from '../../lib/fs-layer.js';
import { bytesOf, holdOnHeap, type HeapBytes } from '../../lib/heap-bytes.js';
import type { Logger } from '../../lib/logger.js';
import { dropGenerations, dropLeftovers, readJournal, WriteJournal, type JournalRecord } from './write-journal.js';

/**
 * Dashboard files written at once while materialising behind live writers. Each holds a libuv pool thread (4 by
 * default) through its fsyncs; more would queue the journal's own synchronous write behind them and stall every
 * acknowledgement. At start (replay) and on close nothing waits for the journal, so more go at once.
 */
const BACKGROUND_CONCURRENCY = 2;
const EXCLUSIVE_CONCURRENCY = 16;
/**
 * Journal bytes a restart may have to replay before writers wait for the materialiser: bounds the replay time
 * (one durable file write per id the journal touches, however often it was written) and the journal's disk use.
 */
export const MAX_JOURNAL_BYTES = 256 * 1024 * 1024;

/** When the materialiser starts (besides a pause in the writes) and when it takes the whole pool. */
export interface CheckpointLimits {
  /**
   * Journal bytes that start a pass: the longer the files lag behind a burst, the more writes to one id cost one
   * file write, and the disk's fsyncs go to acknowledging.
   */
  readonly journalBytes: number;
  /**
   * Bytes of the contents waiting for their files (each id's latest, held in memory) that start a pass: the memory
   * bound, reached first when the writes go to many different ids (a daemon's first apply of 10,000 dashboards).
   */
  readonly waitingBytes: number;
  /** Writes pausing this long start a pass. */
  readonly idleMs: number;
  /** Pause before materialising again after a failed file write (the journal holds the records meanwhile). */
  readonly retryMs: number;
}

/**
 * Two bounds, not one: under a burst to 1,000 dashboards a 160 MB journal writes a third as many files as a 64 MB
 * one (bench `put`: +6 % req/s in an alternating comparison), while the memory held stays bounded by the contents.
 */
export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  journalBytes: 160 * 1024 * 1024,
  waitingBytes: 64 * 1024 * 1024,
  idleMs: 100,
  retryMs: 1000,
};

/**
 * Journal bytes past which the files are falling behind the writers, halfway from the checkpoint to the bound: the
 * materialiser takes the whole pool, slowing acknowledgements a little now rather than stopping every writer at
 * MAX_JOURNAL_BYTES later (measured: at 2 files at a time a pass over 1,000 dashboards took 1.2 s).
 */
const behindBytes = ({ journalBytes }: CheckpointLimits): number => journalBytes + (MAX_JOURNAL_BYTES - journalBytes) / 2;

/**
 * A checkpoint compacts the journal only if that shrinks it to this fraction or less (see `compacts`). The journal
 * grows by twice the writes while the relog runs (it keeps pace with them): from the 160 MB checkpoint, by at most
 * two quarters of it, it stays below the 256 MB bound at which writers would wait.
 */
const COMPACTION_GAIN = 4;

export interface JournaledFilesDeps {
  /** The dashboards directory: `<id>.json` per dashboard. */
  readonly dir: string;
  /** The journal's own directory, beside the dashboards one. */
  readonly journalDir: string;
  readonly fs: FsLayer;
  readonly log: Logger;
  /** Default DEFAULT_CHECKPOINT_LIMITS; a test makes them small. */
  readonly limits?: CheckpointLimits;
}

/** Files written per step of a materialiser run: each step picks its concurrency anew (see `concurrency`). */
const STEP = 64;

/** Writes each id's latest contents as `<id>.json` (or removes it), durably, sharing directory fsyncs. */
async function materialise(deps: JournaledFilesDeps, latest: ReadonlyMap<string, HeapBytes | null>, barrier: DirSyncBarrier, concurrency: () => number): Promise<void> {
  const syncDir = (): Promise<void> => barrier.sync();
  const entries = [...latest];
  for (let i = 0; i < entries.length; i += STEP) {
    await mapConcurrent(entries.slice(i, i + STEP), concurrency(), async ([id, contents]) => {
      const file = join(deps.dir, `${id}.json`);
      if (contents !== null) return writeFileDurable(file, bytesOf(contents), { fs: deps.fs, syncDir });
      await deps.fs.unlink(file).catch(ignoreMissing);
      return syncDir();
    });
  }
}

/** Each id's last contents, as the materialiser holds them (see `JournaledFiles.dirty`). */
const latestById = (records: readonly JournalRecord[]): Map<string, HeapBytes | null> => new Map(records.map(({ id, contents }) => [id, contents && holdOnHeap(contents)]));

/**
 * Start-up: every journalled write a crash left unmaterialised is written to its file (the last record per id
 * wins), then the journal is dropped. Runs before the directory is loaded, so the files it reads are the latest.
 */
export async function replayJournal(deps: JournaledFilesDeps): Promise<number> {
  await dropLeftovers(deps.journalDir, deps.fs);
  const { records, generations, torn } = await readJournal(deps.journalDir);
  if (torn) deps.log.warn({ dir: deps.journalDir }, 'dropped the torn tail of a journal batch that was never acknowledged');
  if (records.length > 0) {
    await mkdirDurable(deps.dir, deps.fs);
    await materialise(deps, latestById(records), new DirSyncBarrier(deps.dir, deps.fs), () => EXCLUSIVE_CONCURRENCY);
    deps.log.info({ dir: deps.dir, records: records.length }, 'replayed journalled writes into dashboard files');
  }
  await dropGenerations(deps.journalDir, generations, deps.fs);
  return generations.at(-1) ?? 0;
}

/**
 * Acknowledges writes from the journal and turns them into per-dashboard files behind the writers' backs: the
 * materialiser rotates the journal, writes the latest contents of every id the retired generations touched (many
 * writes to one id cost one file write), then drops them. A crash at any point leaves each acknowledged write in
 * the journal or in its file, and replay puts it in the file.
 */
export class JournaledFiles {
  /**
   * Each id's latest contents waiting for its file. On V8's heap (heap-bytes.ts): up to two checkpoints' worth (one
   * being written, one waiting) lives for seconds among a burst's short-lived buffers, whose freed memory it would
   * otherwise keep resident.
   */
  private dirty = new Map<string, HeapBytes | null>();
  /** The bytes of the contents in `dirty`. */
  private dirtyBytes = 0;
  /** A pass failed and the retry timer is set: reaching a checkpoint does not start another before it fires. */
  private backingOff = false;
  private running: Promise<boolean> | undefined;
  /** The idle or retry timer that will start the materialiser. */
  private retry: NodeJS.Timeout | undefined;
  private readonly barrier: DirSyncBarrier;
  /**
   * Set by close(), and `held` counts writers waiting for the journal to shrink: either way nobody needs the pool
   * for a journal commit, so the materialiser takes all of it and writers wait for as short a time as it can.
   */
  private closing = false;
  private held = 0;
  /** Writers waiting for the journal to shrink, woken after every pass (not only when the materialiser is idle). */
  private passWaiters: Array<(ok: boolean) => void> = [];
  /** Callers of flushed() waiting: they want the files, so no pass compacts the journal instead. */
  private flushing = 0;

  private constructor(
    private readonly deps: JournaledFilesDeps,
    private journal: WriteJournal | undefined,
  ) {
    this.barrier = new DirSyncBarrier(deps.dir, deps.fs);
  }

  static async open(deps: JournaledFilesDeps): Promise<JournaledFiles> {
    const last = await replayJournal(deps);
    const files = new JournaledFiles(deps, undefined);
    files.journal = await WriteJournal.open(deps.journalDir, deps.fs, last, (records) => {
      for (const { id, contents } of records) files.markDirty(id, contents && holdOnHeap(contents));
      files.schedule();
    });
    return files;
  }

  /**
   * Opens the journal, then runs `load` (what a store reads beside it); a failed load closes the journal again, or a
   * server retrying an environment that cannot open would hold one more descriptor each time.
   */
  static async openWith<T>(deps: JournaledFilesDeps, load: () => Promise<T>): Promise<{ files: JournaledFiles; loaded: T }> {
    const files = await JournaledFiles.open(deps);
    try {
      return { files, loaded: await load() };
    } catch (error) {
      await files.close().catch(() => undefined);
      throw error;
    }
  }

  /** Resolves once `record` is durable in the journal; waits first while the journal is over its bound. */
  async write(record: JournalRecord): Promise<void> {
    const journal = this.journal as WriteJournal;
    if (journal.liveBytes > MAX_JOURNAL_BYTES) {
      this.held += 1;
      try {
        while (journal.liveBytes > MAX_JOURNAL_BYTES) if (!(await this.nextPass())) break;
      } finally {
        this.held -= 1;
      }
    }
    await journal.append(record);
  }

  /** Resolves after the materialiser's next pass retires generations (true) or fails (false); starts it if idle. */
  private nextPass(): Promise<boolean> {
    const pass = new Promise<boolean>((resolve) => this.passWaiters.push(resolve));
    void this.kick();
    return pass;
  }

  private passDone(ok: boolean): void {
    const waiters = this.passWaiters;
    this.passWaiters = [];
    for (const wake of waiters) wake(ok);
  }

  /** Bytes of the contents waiting for their files, in memory (each id's latest once). */
  get waitingBytes(): number {
    return this.dirtyBytes;
  }

  private get limits(): CheckpointLimits {
    return this.deps.limits ?? DEFAULT_CHECKPOINT_LIMITS;
  }

  private markDirty(id: string, contents: HeapBytes | null): void {
    this.dirtyBytes += (contents?.length ?? 0) - (this.dirty.get(id)?.length ?? 0);
    this.dirty.set(id, contents);
  }

  /** Whether either checkpoint is reached: the next pass is due now. */
  private due(): boolean {
    return (this.journal?.liveBytes ?? 0) >= this.limits.journalBytes || this.dirtyBytes >= this.limits.waitingBytes;
  }

  /** Materialise now if a checkpoint is reached, else once writes pause. */
  private schedule(): void {
    if (this.running || this.backingOff) return;
    if (this.due()) {
      void this.kick();
      return;
    }
    clearTimeout(this.retry);
    this.retry = setTimeout(() => void this.kick(), this.limits.idleMs).unref();
  }

  private kick(): Promise<boolean> {
    clearTimeout(this.retry);
    this.backingOff = false;
    this.running ??= this.pass().then((ok) => {
      this.running = undefined;
      if (!ok) {
        this.backingOff = true;
        this.retry = setTimeout(() => void this.kick(), this.limits.retryMs).unref();
      } else if (this.dirty.size > 0) this.schedule();
      return ok;
    });
    return this.running;
  }

  /**
   * Whether this pass compacts the journal instead of writing the files: a burst to few ids reached the journal's
   * checkpoint, their contents are a small part of it, and nobody waits for the files. Appending each id's latest
   * record again, a chunk with each commit, replaces a file write with its fsyncs per id, which competed with the
   * commits for the disk; the files are written once the writes pause (or the contents reach their memory bound).
   */
  private compacts(journal: WriteJournal): boolean {
    if (this.closing || this.flushing > 0 || this.dirtyBytes >= this.limits.waitingBytes) return false;
    return journal.liveBytes >= this.limits.journalBytes && this.dirtyBytes * COMPACTION_GAIN <= journal.liveBytes;
  }

  /**
   * Compacts the journal: appends each waiting id's latest record again, then drops the generations the rotation
   * closed. Every record in them has its id's latest contents in `dirty` (a pass that wrote files retired everything
   * before; one that failed put its contents back), and they stay there for the files.
   */
  private async compact(journal: WriteJournal): Promise<boolean> {
    try {
      const rotation = await journal.rotate(() => [...this.dirty]);
      const latest = rotation.taken;
      let at = 0;
      await journal.relog(() => {
        while (at < latest.length) {
          const [id, contents] = latest[at++] as [string, HeapBytes | null];
          // Otherwise a write durable since the rotation holds this id's latest, in a generation that stays.
          if (this.dirty.get(id) === contents) return { id, contents: contents && bytesOf(contents) };
        }
        return undefined;
      });
      await journal.retire(rotation.retired, rotation.retiredBytes);
    } catch (error) {
      this.deps.log.error({ err: error, dir: this.deps.journalDir }, 'compacting the journal failed; retrying');
      this.passDone(false);
      return false;
    }
    this.passDone(true);
    return true;
  }

  /**
   * One pass: compacts the journal (see `compacts`), or rotates it, writes what was dirty, retires what it covered.
   * Writes that land meanwhile wait for the next checkpoint, so under a burst a pass covers many writes per file;
   * false when a write failed (the records stay journalled and dirty).
   */
  private async pass(): Promise<boolean> {
    const journal = this.journal as WriteJournal;
    if (this.compacts(journal)) return this.compact(journal);
    let taken: ReadonlyMap<string, HeapBytes | null> = new Map();
    try {
      const rotated = await journal.rotate(() => this.takeDirty());
      taken = rotated.taken;
      // The next pass already due (its contents held beside this one's) also means falling behind.
      const behind = (): boolean => this.closing || this.held > 0 || journal.liveBytes > behindBytes(this.limits) || this.dirtyBytes >= this.limits.waitingBytes;
      await materialise(this.deps, taken, this.barrier, () => (behind() ? EXCLUSIVE_CONCURRENCY : BACKGROUND_CONCURRENCY));
      await journal.retire(rotated.retired, rotated.retiredBytes);
    } catch (error) {
      // Newer writes taken since win; the rest goes back, so no retired generation is dropped before its file.
      for (const [id, contents] of taken) if (!this.dirty.has(id)) this.markDirty(id, contents);
      this.deps.log.error({ err: error, dir: this.deps.dir }, 'writing journalled dashboards to their files failed; retrying');
      this.passDone(false);
      return false;
    }
    this.passDone(true);
    return true;
  }

  private takeDirty(): Map<string, HeapBytes | null> {
    const taken = this.dirty;
    this.dirty = new Map();
    this.dirtyBytes = 0;
    return taken;
  }

  /** Resolves once every write acknowledged so far is in its file; rejects if writing the files fails. */
  async flushed(): Promise<void> {
    this.flushing += 1;
    try {
      while (this.running || this.dirty.size > 0) {
        if (!(await (this.running ?? this.kick()))) throw new Error(`the dashboard files in ${this.deps.dir} could not be written; the journal keeps the writes`);
      }
    } finally {
      this.flushing -= 1;
    }
  }

  /**
   * Materialises everything acknowledged and closes the journal: a clean stop leaves no journal to replay. If the
   * files cannot be written (disk full), the journal stays and the next start replays it.
   */
  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    let ok = (await this.running) ?? true;
    while (ok && this.dirty.size > 0) ok = await this.kick();
    clearTimeout(this.retry);
    await this.journal?.close(ok && this.dirty.size === 0);
  }
}
