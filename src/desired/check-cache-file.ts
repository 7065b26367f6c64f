import { createHash } from 'node:crypto';
import { readdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { TEMP_MARKER, writeFileDurable } from '../lib/durable-file.js';
import { decodeCheckCache, encodeCheckCache } from './check-cache-format.js';
import { checkCodeKey } from './check-code-key.js';
import type { DesiredCache } from './desired-cache.js';
import { decodeFileStamps, encodeFileStamps, sameStamp, stampOf, type FileStamp, type StampedHash } from './file-stamps.js';
import type { PackedCheck } from './packed-check.js';
import type { KnownFiles } from './read-sources.js';
import { withPidLock } from '../lib/pid-lock.js';
import { makeDirs } from '../lib/make-dirs.js';

/**
 * The check cache between CLI runs: one file per dashboards folder in the user's cache folder, holding each file's
 * check by content hash (check-cache-format.ts), valid only for the check code that wrote it (check-code-key.ts).
 * A no-op plan of a folder that did not change then neither parses nor validates a file. Best effort throughout:
 * a missing, unreadable, damaged or foreign file reads as empty, and a write that fails (a read-only cache in CI, a
 * full disk) leaves the run as it was; the run's results never depend on the cache, only its time.
 *
 * Beside it, `<same name>.stamps`: each file's content hash by its stamp (file-stamps.ts), so that a run reads only
 * the files whose stamp changed. A stamp is used only while the check of its hash is held, and kept in a file of its
 * own so that new stamps (a fresh checkout of unchanged files) cost a small write, not the checks' whole file.
 */
export interface CheckCacheFile extends DesiredCache {
  /** Where it is read from and written to. */
  readonly path: string;
  /**
   * Writes the checks this run used or made, when they differ from what was read: durably, whole (a kill leaves the
   * old file or the new one). `keepUnseen`: also keep entries this run did not look at (a run over some files).
   * Never throws.
   */
  save(options: { keepUnseen: boolean }): Promise<void>;
}

/** Most entries kept, whatever `keepUnseen` accumulates: a few folders' worth. */
const MAX_ENTRIES = 50_000;
/** A cache file no run has written for this long is another folder's, likely gone (a temp dir, an old checkout). */
const STALE_MS = 30 * 24 * 3_600_000;
/** A temp file this old is a writer that was killed, not one still writing. */
const STALE_TEMP_MS = 3_600_000;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * `$XDG_CACHE_HOME/dashcd`, else `%LOCALAPPDATA%/dashcd` (Windows), else `$HOME/.cache/dashcd`; undefined when
 * the environment names no such folder (then nothing is cached). A HOME that does not exist (a service account's
 * `/nonexistent`) is none: the cache would otherwise create it, as root at the top of the file system.
 */
export function checkCacheDir(env: Env, isDirectory: (path: string) => boolean = isExistingDirectory): string | undefined {
  const base = [env.XDG_CACHE_HOME, env.LOCALAPPDATA].find((dir) => dir !== undefined && isAbsolute(dir));
  if (base !== undefined) return join(base, 'dashcd');
  return env.HOME !== undefined && isAbsolute(env.HOME) && isDirectory(env.HOME) ? join(env.HOME, '.cache', 'dashcd') : undefined;
}

function isExistingDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** `DASHCD_CACHE=off` (also `0`, `false`, `no`) turns the cache off, as `--no-cache` does for one run. */
export function cacheTurnedOff(env: Env): boolean {
  return /^(?:off|0|false|no)$/i.test(env.DASHCD_CACHE ?? '');
}

/**
 * The cache of the dashboards folder `root` (absolute), read now; undefined when there is no cache folder. `now`:
 * the clock file stamps are taken by (tests set it ahead: a file written by the test is otherwise not yet settled).
 */
export async function openCheckCache(root: string, env: Env, { now = Date.now }: { now?: () => number } = {}): Promise<CheckCacheFile | undefined> {
  const dir = checkCacheDir(env);
  if (dir === undefined || !(await stat(dir).then((stats) => writableOnlyByUs(stats), () => true))) return undefined;
  const path = join(dir, `checks-${createHash('sha256').update(root).digest('hex').slice(0, 24)}.bin`);
  const stampsPath = path.replace(/\.bin$/, '.stamps');
  const [codeKey, stamps] = await Promise.all([checkCodeKey().catch(() => undefined), readVersion(stampsPath, decodeFileStamps)]);
  // Without the code's key no entry can be trusted: the run checks every file, as with the cache off.
  if (codeKey === undefined) return undefined;
  const checks = await readVersion(path, (bytes) => decodeCheckCache(bytes, codeKey));
  return new FileBackedCache({ path, stampsPath, dir, codeKey, now }, checks, stamps);
}

/**
 * Whether only this user could have written what `stats` describes: owned by us, writable by neither group nor
 * others. An entry holds the body apply sends, and its key is no secret (check-code-key.ts), so whoever may write the
 * cache (another job of a shared runner, a shared XDG_CACHE_HOME) could make an invalid file pass and change what is
 * sent: a folder or file anyone else may write is not read. Where there are no user ids (Windows) the folder's
 * permissions are the user profile's.
 */
export function writableOnlyByUs(stats: { uid: number; mode: number }, us: { uid: number | undefined } = { uid: process.getuid?.() }): boolean {
  return us.uid === undefined || (stats.uid === us.uid && (stats.mode & 0o022) === 0);
}

/** A cache file's entries as read, and the stamp of the file they were read from (undefined: there was none). */
interface ReadVersion<V> {
  readonly entries: ReadonlyMap<string, V>;
  readonly stamp: FileStamp | undefined;
}

type Decode<V> = (bytes: Buffer) => ReadonlyMap<string, V> | undefined | Promise<ReadonlyMap<string, V> | undefined>;

/**
 * Reads a cache file, stamped first: if it is replaced in between, the stamp is the older file's, so a later look
 * sees a change and reads again (stamped after, an old read could pass for the new file).
 */
async function readVersion<V>(path: string, decode: Decode<V>): Promise<ReadVersion<V>> {
  const stats = await stat(path).catch(() => undefined);
  const stamp = stats === undefined ? undefined : stampOf(stats);
  const entries = stats !== undefined && writableOnlyByUs(stats) ? await readFile(path).then(decode, () => undefined) : undefined;
  return { entries: entries ?? new Map(), stamp: entries === undefined ? undefined : stamp };
}

/**
 * The file's entries as they are now, for a run over some files to keep: what this run read, unless another run has
 * written the file since (then read again; at 10,000 files that is 15 MB to decode, so only then).
 */
async function entriesNow<V>(path: string, read: ReadVersion<V>, decode: Decode<V>): Promise<ReadonlyMap<string, V>> {
  const now = await stat(path).then(stampOf, () => undefined);
  if (now === undefined || (read.stamp !== undefined && sameStamp(now, read.stamp))) return read.entries;
  return (await readFile(path).then(decode, () => undefined)) ?? read.entries;
}

/** This run's entries, then (a run over some files) the others', at most MAX_ENTRIES. */
function keptEntries<V>(seen: ReadonlyMap<string, V>, others: ReadonlyMap<string, V> | undefined): [string, V][] {
  const entries = new Map(seen);
  if (others) for (const [key, value] of others) if (entries.size < MAX_ENTRIES && !entries.has(key)) entries.set(key, value);
  return [...entries].slice(0, MAX_ENTRIES);
}

interface CacheFiles {
  path: string;
  stampsPath: string;
  dir: string;
  codeKey: Buffer;
  now: () => number;
}

class FileBackedCache implements CheckCacheFile {
  /** This run's checks, hits and new ones, in the order it asked. */
  private readonly seen = new Map<string, PackedCheck>();
  private added = false;
  readonly files: Stamps;
  readonly path: string;
  private readonly read: ReadonlyMap<string, PackedCheck>;

  constructor(
    private readonly where: CacheFiles,
    private readonly readVersion: ReadVersion<PackedCheck>,
    readStamps: ReadVersion<StampedHash>,
  ) {
    this.path = where.path;
    this.read = readVersion.entries;
    this.files = new Stamps(readStamps, where.now, (hash) => this.seen.has(hash) || this.read.has(hash));
  }

  get(contentHash: string): PackedCheck | undefined {
    const check = this.seen.get(contentHash) ?? this.read.get(contentHash);
    if (check !== undefined) this.seen.set(contentHash, check);
    return check;
  }

  set(contentHash: string, check: PackedCheck): void {
    this.seen.set(contentHash, check);
    this.added = true;
  }

  get size(): number {
    return this.seen.size;
  }

  async save({ keepUnseen }: { keepUnseen: boolean }): Promise<void> {
    const { path, dir, codeKey } = this.where;
    const writesChecks = this.added || (!keepUnseen && this.seen.size < this.read.size);
    // Unchanged: only marked as used, so that removeStale (run by another folder's writes) keeps it.
    if (!writesChecks) await utimes(path, new Date(), new Date()).catch(() => undefined);
    if (!writesChecks && !this.files.writes(keepUnseen)) return void (await this.files.touch(this.where.stampsPath));
    try {
      await makeDirs(dir, 0o700);
      // Concurrent runs over one folder (CI jobs, an editor's checks beside a plan) each write what they read at
      // their start plus what they added: without the lock and a fresh read, the last to write dropped the others'.
      await withPidLock(`${path.replace(/\.bin$/, '')}.lock`, LOCK_WAIT_MS, async () => {
        await this.files.save(this.where.stampsPath, keepUnseen);
        if (!writesChecks) return;
        const others = keepUnseen ? await entriesNow(path, this.readVersion, (bytes) => decodeCheckCache(bytes, codeKey)) : undefined;
        await writeFileDurable(path, encodeCheckCache(codeKey, keptEntries(this.seen, others)), { mode: 0o600 });
      }, { staleAfterMs: LOCK_STALE_MS });
      await removeStale(dir);
    } catch {
      // A cache that cannot be written (read-only, full disk, another user's folder) only costs the next run time.
    }
  }
}

/** How long a run waits for another run's write of the same folder's cache; past it, this run's goes unsaved. */
const LOCK_WAIT_MS = 5_000;
/** A holder keeps the lock for one durable write: one older than this was left by a killed run. */
const LOCK_STALE_MS = 60_000;

/** The stamps part: content hashes by path, vouched for only while their check is held. */
class Stamps implements KnownFiles {
  private readonly seen = new Map<string, StampedHash>();
  private added = false;

  private readonly read: ReadonlyMap<string, StampedHash>;

  constructor(
    private readonly readVersion: ReadVersion<StampedHash>,
    readonly now: () => number,
    private readonly holds: (contentHash: string) => boolean,
  ) {
    this.read = readVersion.entries;
  }

  knownHash(path: string, stamp: FileStamp): string | undefined {
    const entry = this.read.get(path);
    if (entry === undefined || !sameStamp(entry.stamp, stamp) || !this.holds(entry.contentHash)) return undefined;
    this.seen.set(path, entry);
    return entry.contentHash;
  }

  noteHash(path: string, stamp: FileStamp, contentHash: string): void {
    this.seen.set(path, { stamp, contentHash });
    this.added = true;
  }

  /** Whether save writes: this run recorded a stamp, or (a whole run) saw fewer files than were recorded. */
  writes(keepUnseen: boolean): boolean {
    return this.added || (!keepUnseen && this.seen.size !== this.read.size);
  }

  /** Marks the file as used, as the checks are. */
  async touch(stampsPath: string): Promise<void> {
    await utimes(stampsPath, new Date(), new Date()).catch(() => undefined);
  }

  /**
   * Writes the stamps when `writes` says so, keeping (for a partial run) those in the file as it is now; the caller
   * holds the lock and made the folder. Never throws.
   */
  async save(stampsPath: string, keepUnseen: boolean): Promise<void> {
    if (!this.writes(keepUnseen)) return this.touch(stampsPath);
    try {
      const others = keepUnseen ? await entriesNow(stampsPath, this.readVersion, decodeFileStamps) : undefined;
      await writeFileDurable(stampsPath, encodeFileStamps(keptEntries(this.seen, others)), { mode: 0o600 });
    } catch {
      // As for the checks: only the next run's time.
    }
  }
}

/** Cache files of folders no run has used for a month, and temp files of killed writers. */
async function removeStale(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir)) {
    const temp = name.includes(TEMP_MARKER);
    if (!name.startsWith('checks-')) continue;
    const age = now - (await stat(join(dir, name)).then((s) => s.mtimeMs, () => now));
    if (age > (temp ? STALE_TEMP_MS : STALE_MS)) await unlink(join(dir, name)).catch(() => undefined);
  }
}
