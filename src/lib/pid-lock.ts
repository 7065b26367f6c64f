import { readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HeldLock {
  release(): Promise<void>;
}

/** Who holds a lock this process could not take: a live pid, or a holder still writing its pid ("unknown"). */
export type LockHolder = { readonly heldBy: number | 'unknown' };

/**
 * A lock file created with O_EXCL holds its owner's pid between its creation and its write: a lock that young with
 * no pid in it is a holder still writing it, not a dead one.
 */
const PID_WRITE_GRACE_MS = 2_000;

/**
 * Takes the lock file at `path` for this process (it holds our pid), or says who holds it. A lock whose process is
 * gone (a killed holder) is taken over, as is one with no pid older than PID_WRITE_GRACE_MS; when another process
 * takes it over first, that one holds it.
 */
export async function takePidLock(path: string, takingOver = false): Promise<HeldLock | LockHolder> {
  try {
    await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
    return { release: () => unlink(path).catch(() => undefined) };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const owner = await lockOwner(path);
  if (owner !== undefined && isAlive(owner)) return { heldBy: owner };
  if (takingOver || (owner === undefined && (await ageMs(path)) < PID_WRITE_GRACE_MS)) return { heldBy: 'unknown' };
  await unlink(path).catch(() => undefined);
  return takePidLock(path, true);
}

/** The pid a lock file holds; undefined while it holds none (being written, or gone). */
async function lockOwner(path: string): Promise<number | undefined> {
  // Number() reads "123\n" as 123 and an empty or torn text as 0 or NaN.
  const pid = Number(await readFile(path, 'utf8').catch(() => ''));
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

const ageMs = (path: string): Promise<number> => stat(path).then((s) => Date.now() - s.mtimeMs, () => Number.POSITIVE_INFINITY);

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
export async function withPidLock(path: string, waitMs: number, task: () => Promise<void>): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const taken = await takePidLock(path);
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
