import { readFileSync } from 'node:fs';
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
  const taken = await takePidLock(join(envDir, LOCK_FILE));
  if ('release' in taken) return taken;
  if (taken.heldBy === 'unknown') throw new ArchiveError('LOCKED', `another pull is starting on ${envDir} — try again in a moment`);
  throw new ArchiveError('LOCKED', `${holderOf(taken.heldBy, envDir)} (a lock whose process has ended is taken over by the next pull)`);
}

/**
 * Who holds the lock and what to do, told by the holder's command line where `/proc` shows it: a daemon's archive
 * poller and a `--follow` pull never finish, and "wait for it", with the lock file named as if stale, invited
 * deleting a live lock.
 */
function holderOf(pid: number, envDir: string): string {
  const argv = commandLineOf(pid);
  // The words after the script (node's own options come before it): `--env daemon` names no daemon.
  const script = argv.findIndex((arg, i) => i > 0 && !arg.startsWith('-'));
  const [command, sub] = script === -1 ? [] : argv.slice(script + 1);
  if (command === 'daemon') return `the daemon (pid ${pid}) archives ${envDir} — its events are already being pulled; to pull here yourself, stop the daemon`;
  if (command === 'events' && sub === 'pull' && argv.includes('--follow')) return `a following pull (pid ${pid}) is writing to ${envDir} — it keeps the archive until it is stopped`;
  return `another pull (pid ${pid}) is writing to ${envDir} — wait for it to finish, or stop it`;
}

function commandLineOf(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
}
