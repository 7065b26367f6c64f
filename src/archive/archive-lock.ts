import { join } from 'node:path';
import { takePidLock, type HeldLock } from '../lib/pid-lock.js';
import { ArchiveError } from './archive-error.js';

export const LOCK_FILE = '_pull.lock';

export type ArchiveLock = HeldLock;

/**
 * One writer per environment folder: two pulls appending at once could each miss the other's lines and write a
 * version twice. The lock file holds the owner's pid; a lock whose process is gone (a killed pull) is taken over.
 */
export async function acquireArchiveLock(envDir: string): Promise<ArchiveLock> {
  const path = join(envDir, LOCK_FILE);
  const taken = await takePidLock(path);
  if ('release' in taken) return taken;
  if (taken.heldBy === 'unknown') throw new ArchiveError('LOCKED', `another pull is starting on ${envDir} — try again in a moment`);
  throw new ArchiveError('LOCKED', `another pull (pid ${taken.heldBy}) is writing to ${envDir} — wait for it or stop it (a stale lock is ${path})`);
}
