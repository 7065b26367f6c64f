import * as fsp from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HeldLock {
  release(): Promise<void>;
}

/** Who holds a lock this process could not take: a live pid, or a holder still writing its pid ("unknown"). */
export type LockHolder = { readonly heldBy: number | 'unknown' };

/** The file calls a lock makes; tests put their own in to land between two of them, where races happen. */
export interface LockIo {
  readonly writeFile: (path: string, data: string, options: { flag: 'wx' }) => Promise<void>;
  readonly readFile: (path: string, encoding: 'utf8') => Promise<string>;
  readonly stat: (path: string) => Promise<{ mtimeMs: number }>;
  readonly unlink: (path: string) => Promise<void>;
}

const nodeIo: LockIo = { writeFile: fsp.writeFile, readFile: fsp.readFile, stat: fsp.stat, unlink: fsp.unlink };

export interface PidLockOptions {
  readonly io?: LockIo;
  /**
   * A lock older than this is stale whoever it names: for holders that keep it for one write, so that a killed
   * holder's pid, reused by another process, does not hold it forever. Default: only the pid decides.
   */
  readonly staleAfterMs?: number;
}

/**
 * A lock file created with O_EXCL holds its owner's pid between its creation and its write: a lock that young with
 * no pid in it is a holder still writing it, not a dead one.
 */
const PID_WRITE_GRACE_MS = 2_000;

/**
 * Takes the lock file at `path` for this process (it holds our pid), or says who holds it. A lock whose process is
 * gone (a killed holder) is taken over, as is one with no pid older than PID_WRITE_GRACE_MS, or any older than
 * `staleAfterMs`; a lock released meanwhile is simply created again. A stale lock is removed only while it still
 * holds what made it stale, so a waiter never removes the lock another waiter has just taken.
 */
export async function takePidLock(path: string, options: PidLockOptions = {}, retried = false): Promise<HeldLock | LockHolder> {
  const io = options.io ?? nodeIo;
  try {
    await io.writeFile(path, `${process.pid}\n`, { flag: 'wx' });
    return { release: () => releaseIfOurs(io, path) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const seen = await lockState(io, path);
  if (seen === undefined) return retried ? { heldBy: 'unknown' } : takePidLock(path, options, true);
  if (!isStale(seen, options)) return { heldBy: seen.owner ?? 'unknown' };
  if (retried) return { heldBy: 'unknown' };
  const now = await lockState(io, path);
  if (now?.text === seen.text && now.ageMs >= seen.ageMs) await io.unlink(path).catch(() => undefined);
  return takePidLock(path, options, true);
}

interface LockState {
  readonly text: string;
  /** The pid it holds; undefined while it holds none (being written, or torn). */
  readonly owner: number | undefined;
  readonly ageMs: number;
}

/** The lock as it is now; undefined once it is gone (released). */
async function lockState(io: LockIo, path: string): Promise<LockState | undefined> {
  try {
    const [text, info] = await Promise.all([io.readFile(path, 'utf8'), io.stat(path)]);
    // Number() reads "123\n" as 123 and an empty or torn text as 0 or NaN.
    const pid = Number(text);
    return { text, owner: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined, ageMs: Date.now() - info.mtimeMs };
  } catch {
    return undefined;
  }
}

function isStale({ owner, ageMs }: LockState, { staleAfterMs }: PidLockOptions): boolean {
  if (staleAfterMs !== undefined && ageMs > staleAfterMs) return true;
  return owner === undefined ? ageMs >= PID_WRITE_GRACE_MS : !isAlive(owner);
}

/** Removes the lock while it is still this process's (a waiter may have taken over one it thought stale). */
async function releaseIfOurs(io: LockIo, path: string): Promise<void> {
  const state = await lockState(io, path);
  if (state?.owner === process.pid) await io.unlink(path).catch(() => undefined);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Runs `task` holding the lock at `path`, waiting for another holder up to `waitMs` (polling every few
 * milliseconds: holders here keep it for one durable write). False when the lock was not had in time and `task`
 * did not run.
 */
export async function withPidLock(path: string, waitMs: number, task: () => Promise<void>, options: PidLockOptions = {}): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const taken = await takePidLock(path, options);
    if ('release' in taken) {
      try {
        await task();
        return true;
      } finally {
        await taken.release();
      }
    }
    if (Date.now() >= deadline) return false;
    await sleep(LOCK_POLL_MS);
  }
}

const LOCK_POLL_MS = 5;
