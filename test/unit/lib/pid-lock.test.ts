import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as fsp from 'node:fs/promises';
import { takePidLock, withPidLock, type LockIo } from '../../../src/lib/pid-lock.js';

let dir: string;
let lock: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dashcd-pid-lock-'));
  lock = join(dir, 'x.lock');
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** A pid no process has: one that just exited. */
const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString());

describe('takePidLock', () => {
  it('takes a free lock, writing this pid, and release removes it', async () => {
    const taken = await takePidLock(lock);
    expect('release' in taken).toBe(true);
    expect(await readFile(lock, 'utf8')).toBe(`${process.pid}\n`);
    if ('release' in taken) await taken.release();
    await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('names the live process that holds it', async () => {
    await writeFile(lock, `${process.pid}\n`);
    expect(await takePidLock(lock)).toEqual({ heldBy: process.pid });
  });

  it('takes over a lock whose process is gone', async () => {
    await writeFile(lock, `${deadPid()}\n`);
    expect('release' in (await takePidLock(lock))).toBe(true);
    expect(await readFile(lock, 'utf8')).toBe(`${process.pid}\n`);
  });

  it('leaves a young lock without a pid to its holder (still writing it), and takes over an old one', async () => {
    for (const content of ['', '0\n', '-7\n', 'pid\n']) {
      await writeFile(lock, content);
      expect(await takePidLock(lock)).toEqual({ heldBy: 'unknown' });
      const old = new Date(Date.now() - 60_000);
      await utimes(lock, old, old);
      const taken = await takePidLock(lock);
      expect('release' in taken).toBe(true);
      if ('release' in taken) await taken.release();
    }
  });

  it('says so when another process took a stale lock over first, and never takes over twice', async () => {
    await writeFile(lock, `${process.pid}\n`);
    // A retry after a takeover finds the lock held again, here by this live process.
    expect(await takePidLock(lock, {}, true)).toEqual({ heldBy: process.pid });
    await writeFile(lock, `${deadPid()}\n`);
    expect(await takePidLock(lock, {}, true)).toEqual({ heldBy: 'unknown' });
  });

  it('takes over any lock older than staleAfterMs, even one naming a live process (a reused pid)', async () => {
    await writeFile(lock, `${process.pid}\n`);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(await takePidLock(lock, { staleAfterMs: 120_000 })).toEqual({ heldBy: process.pid });
    const taken = await takePidLock(lock, { staleAfterMs: 30_000 });
    expect('release' in taken).toBe(true);
    expect((await stat(lock)).mtimeMs).toBeGreaterThan(old.getTime() + 30_000);
  });

  it('releases only a lock that is still its own', async () => {
    const taken = await takePidLock(lock);
    // Another waiter took it over meanwhile (it thought it stale): its lock stays.
    await writeFile(lock, `${deadPid()}\n`);
    if ('release' in taken) await taken.release();
    expect(await readFile(lock, 'utf8')).not.toBe(`${process.pid}\n`);
  });

  const io = (changes: Partial<LockIo>): LockIo => ({ writeFile: fsp.writeFile, readFile: fsp.readFile, stat: fsp.stat, unlink: fsp.unlink, ...changes });
  const exists = (): Error => Object.assign(new Error('EEXIST'), { code: 'EEXIST' });

  it('creates the lock again when its holder released it between the failed create and the read', async () => {
    let creates = 0;
    // The first create meets a lock that is gone by the time it is read.
    const released = io({ writeFile: async (path, data, options) => (creates++ === 0 ? Promise.reject(exists()) : fsp.writeFile(path, data, options)) });
    expect('release' in (await takePidLock(lock, { io: released }))).toBe(true);
    expect(creates).toBe(2);
    await fsp.unlink(lock);
    creates = 0;
    expect(await takePidLock(lock, { io: released }, true)).toEqual({ heldBy: 'unknown' });
  });

  it('leaves a stale lock in place when another waiter replaced it before this one removes it', async () => {
    await writeFile(lock, `${deadPid()}\n`);
    let reads = 0;
    const raced = io({
      readFile: async (path, encoding) => {
        // Between this waiter's two looks, another took the stale lock over: a new file with a live pid.
        if (reads++ === 1) await fsp.writeFile(lock, `${process.pid}\n`);
        return fsp.readFile(path, encoding);
      },
    });
    expect(await takePidLock(lock, { io: raced })).toEqual({ heldBy: process.pid });
    expect(await readFile(lock, 'utf8')).toBe(`${process.pid}\n`);
  });

  it('fails on anything but an existing lock (a folder that is not there)', async () => {
    await expect(takePidLock(join(dir, 'missing', 'x.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('withPidLock', () => {
  it('runs the task holding the lock and releases it after, also when the task throws', async () => {
    let during = '';
    expect(await withPidLock(lock, 1000, async () => void (during = await readFile(lock, 'utf8')))).toBe(true);
    expect(during).toBe(`${process.pid}\n`);
    await expect(withPidLock(lock, 1000, () => Promise.reject(new Error('task failed')))).rejects.toThrow('task failed');
    await expect(stat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('waits for the holder to release it', async () => {
    const held = await takePidLock(lock);
    const order: string[] = [];
    const waiting = withPidLock(lock, 10_000, async () => void order.push('second'));
    // The waiter polls; it must not run while the lock is held.
    await new Promise((resolve) => setTimeout(resolve, 30));
    order.push('first releases');
    if ('release' in held) await held.release();
    expect(await waiting).toBe(true);
    expect(order).toEqual(['first releases', 'second']);
  });

  it('gives up after waitMs without running the task', async () => {
    await writeFile(lock, `${process.pid}\n`);
    let ran = false;
    expect(await withPidLock(lock, 20, async () => void (ran = true))).toBe(false);
    expect(ran).toBe(false);
  });
});
