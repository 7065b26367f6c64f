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

  it('refuses while a live pull holds it, naming its pid and the lock file', async () => {
    await writeFile(join(envDir, LOCK_FILE), `${process.pid}\n`);
    await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({
      code: 'LOCKED',
      message: expect.stringContaining(`another pull (pid ${process.pid}) is writing to ${envDir}`),
    });
  });

  it('refuses while another pull is still writing its pid into a lock it just made, saying to try again', async () => {
    await writeFile(join(envDir, LOCK_FILE), '');
    await expect(acquireArchiveLock(envDir)).rejects.toMatchObject({ code: 'LOCKED', message: expect.stringContaining('another pull is starting') });
  });
});
