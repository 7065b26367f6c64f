import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, stat, unlink, utimes } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { TEMP_MARKER, writeFileDurable } from '../lib/durable-file.js';
import { decodeCheckCache, encodeCheckCache } from './check-cache-format.js';
import { checkCodeKey } from './check-code-key.js';
import type { DesiredCache } from './desired-cache.js';
import type { PackedCheck } from './packed-check.js';

/**
 * The check cache between CLI runs: one file per dashboards folder in the user's cache folder, holding each file's
 * check by content hash (check-cache-format.ts), valid only for the check code that wrote it (check-code-key.ts).
 * A no-op plan of a folder that did not change then neither parses nor validates a file. Best effort throughout:
 * a missing, unreadable, damaged or foreign file reads as empty, and a write that fails (a read-only cache in CI, a
 * full disk) leaves the run as it was; the run's results never depend on the cache, only its time.
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
 * the environment names no such folder (then nothing is cached).
 */
export function checkCacheDir(env: Env): string | undefined {
  const base = [env.XDG_CACHE_HOME, env.LOCALAPPDATA].find((dir) => dir !== undefined && isAbsolute(dir));
  if (base !== undefined) return join(base, 'dashcd');
  return env.HOME !== undefined && isAbsolute(env.HOME) ? join(env.HOME, '.cache', 'dashcd') : undefined;
}

/** `DASHCD_CACHE=off` (also `0`, `false`, `no`) turns the cache off, as `--no-cache` does for one run. */
export function cacheTurnedOff(env: Env): boolean {
  return /^(?:off|0|false|no)$/i.test(env.DASHCD_CACHE ?? '');
}

/** The cache of the dashboards folder `root` (absolute), read now; undefined when there is no cache folder. */
export async function openCheckCache(root: string, env: Env): Promise<CheckCacheFile | undefined> {
  const dir = checkCacheDir(env);
  if (dir === undefined) return undefined;
  const path = join(dir, `checks-${createHash('sha256').update(root).digest('hex').slice(0, 24)}.bin`);
  const codeKey = await checkCodeKey().catch(() => undefined);
  // Without the code's key no entry can be trusted: the run checks every file, as with the cache off.
  if (codeKey === undefined) return undefined;
  const read = await readFile(path).then((bytes) => decodeCheckCache(bytes, codeKey), () => undefined);
  return new FileBackedCache(path, dir, codeKey, read ?? new Map());
}

class FileBackedCache implements CheckCacheFile {
  /** This run's checks, hits and new ones, in the order it asked. */
  private readonly seen = new Map<string, PackedCheck>();
  private added = false;

  constructor(
    readonly path: string,
    private readonly dir: string,
    private readonly codeKey: Buffer,
    private readonly read: ReadonlyMap<string, PackedCheck>,
  ) {}

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
    const dropped = !keepUnseen && this.seen.size < this.read.size;
    // Unchanged: only marked as used, so that removeStale (run by another folder's writes) keeps it.
    if (!this.added && !dropped) return void (await utimes(this.path, new Date(), new Date()).catch(() => undefined));
    const entries = new Map(this.seen);
    if (keepUnseen) for (const [hash, check] of this.read) if (entries.size < MAX_ENTRIES && !entries.has(hash)) entries.set(hash, check);
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      await writeFileDurable(this.path, encodeCheckCache(this.codeKey, [...entries].slice(0, MAX_ENTRIES)), { mode: 0o600 });
      await removeStale(this.dir);
    } catch {
      // A cache that cannot be written (read-only, full disk, another user's folder) only costs the next run time.
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
