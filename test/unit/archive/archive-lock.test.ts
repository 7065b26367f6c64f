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

  it('names a daemon or a following pull as the holder by its command words: neither ever finishes (it said to wait, naming the lock as if stale)', async () => {
    const script = join(envDir, 'holder.mjs');
    await writeFile(script, 'setInterval(() => {}, 1000);\n');
    const another = (pid: number): string => `another pull (pid ${pid}) is writing to ${envDir}`;
    for (const [argv, said] of [
      [['--v8-pool-size=2', script, 'daemon', '--env', 'dev'], (pid: number) => `the daemon (pid ${pid}) archives ${envDir} — its events are already being pulled; to pull here yourself, stop the daemon`],
      [[script, 'events', 'pull', '--follow'], (pid: number) => `a following pull (pid ${pid}) is writing to ${envDir} — it keeps the archive until it is stopped`],
      [[script, 'events', 'pull', '--env', 'daemon'], another],
      [[script, 'events', 'pull', '--archive', 'daemon'], another],
      [[script, 'daemon-like', '--follow'], another],
    ] as const) {
      const holder = spawn(process.execPath, [...argv], { stdio: 'ignore' });
      try {
        await writeFile(join(envDir, LOCK_FILE), `${holder.pid}\n`);
        await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining(said(holder.pid as number)) });
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
