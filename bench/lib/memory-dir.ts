import type { StatsFs } from 'node:fs';
import { statfs } from 'node:fs/promises';

/** statfs(2) f_type of Linux's tmpfs: files there live in RAM, and fsync returns at once. */
const TMPFS_MAGIC = 0x01021994;
/** Where a Linux machine has a tmpfs for anyone to use. */
export const CANDIDATES: readonly string[] = ['/dev/shm'];

/** What the check reads of a file system (statfs(2)); a caller may pass its own, sync or not. */
export type StatFs = (path: string) => Pick<StatsFs, 'type' | 'bavail' | 'bsize'> | Promise<Pick<StatsFs, 'type' | 'bavail' | 'bsize'>>;

/**
 * A directory whose files live in memory (tmpfs) with at least `freeBytes` available to this user, or undefined where
 * the machine has none (macOS) or only a small one (a container's `/dev/shm` is 64 MB unless it is given more). The
 * bench's in-memory PUT server and the test suite's temporary files both ask here.
 */
export async function memoryBackedDir(freeBytes: number, candidates: readonly string[] = CANDIDATES, statfsOf: StatFs = statfs): Promise<string | undefined> {
  for (const dir of candidates) {
    const stats = await Promise.resolve()
      .then(() => statfsOf(dir))
      .catch(() => undefined);
    if (stats?.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= freeBytes) return dir;
  }
  return undefined;
}
