import { readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ArchiveError } from './archive-error.js';

export const LOCK_FILE = '_pull.lock';

export interface ArchiveLock {
  release(): Promise<void>;
}

/**
 * One writer per environment folder: two pulls appending at once could each miss the other's lines and write a
 * version twice. The lock file holds the owner's pid; a lock whose process is gone (a killed pull) is taken over.
 */
export async function acquireArchiveLock(envDir: string): Promise<ArchiveLock> {
  const path = join(envDir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
      return { release: () => unlink(path).catch(() => undefined) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
      throw new ArchiveError('LOCKED', `another pull (pid ${owner}) is writing to ${envDir} — wait for it or stop it (a stale lock is ${path})`);
    }
    await unlink(path).catch(() => undefined);
  }
  throw new ArchiveError('LOCKED', `could not take the lock ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
