import { statfs } from 'node:fs/promises';

/** statfs(2) f_type of Linux's tmpfs: files there live in RAM, and fsync returns at once. */
const TMPFS_MAGIC = 0x01021994;
/** Where a Linux machine has a tmpfs for anyone to use. */
const CANDIDATES = ['/dev/shm'];

/**
 * A directory whose files live in memory (tmpfs) with at least `freeBytes` available to this user, or undefined where
 * the machine has none (macOS) or only a small one (a container's `/dev/shm` is 64 MB unless it is given more).
 */
export async function memoryBackedDir(freeBytes: number, candidates: readonly string[] = CANDIDATES): Promise<string | undefined> {
  for (const dir of candidates) {
    const stats = await statfs(dir).catch(() => undefined);
    if (stats?.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= freeBytes) return dir;
  }
  return undefined;
}
