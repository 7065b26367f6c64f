import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireArchiveLock, LOCK_FILE } from '../../../src/archive/archive-lock.js';

let envDir: string;
beforeEach(async () => {
  envDir = await mkdtemp(join(tmpdir(), 'dashcd-archive-lock-'));
});
afterEach(async () => rm(envDir, { recursive: true, force: true }));

describe('the archive pull lock', () => {
  it('is taken when free and released after', async () => {
    const lock = await acquireArchiveLock(envDir);
    await lock.release();
    await expect(stat(join(envDir, LOCK_FILE))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses while a live pull holds it, naming its pid', async () => {
    await writeFile(join(envDir, LOCK_FILE), `${process.pid}\n`);
    await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({
      code: 'LOCKED',
      message: `another pull (pid ${process.pid}) is writing to ${envDir} — wait for it to finish, or stop it (a lock whose process has ended is taken over by the next pull)`,
    });
  });

  it('names a daemon or a following pull as the holder: neither ever finishes (it said to wait, naming the lock as if stale)', async () => {
    for (const [argv, said] of [
      [['daemon', '--env', 'dev'], `the daemon (pid PID) archives ${envDir} — its events are already being pulled; to pull here yourself, stop the daemon`],
      [['events', 'pull', '--follow'], `a following pull (pid PID) is writing to ${envDir} — it keeps the archive until it is stopped`],
    ] as const) {
      const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', ...argv], { stdio: 'ignore' });
      try {
        await writeFile(join(envDir, LOCK_FILE), `${holder.pid}\n`);
        await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining(said.replace('PID', String(holder.pid))) });
      } finally {
        holder.kill();
      }
    }
  });

  it('refuses while another pull is still writing its pid into a lock it just made, saying to try again', async () => {
    await writeFile(join(envDir, LOCK_FILE), '');
    await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining('another pull is starting') });
  });
});
