import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryBackedDir, withTempDirIn } from '../../bench/lib/memory-dir.js';

/** Mount points of tmpfs filesystems, read from the kernel's mount table rather than statfs (what the code uses). */
function tmpfsMounts(): Set<string> {
  if (!existsSync('/proc/mounts')) return new Set();
  const lines = readFileSync('/proc/mounts', 'utf8').split('\n');
  return new Set(lines.map((line) => line.split(' ')).filter((fields) => fields[2] === 'tmpfs').map((fields) => fields[1] ?? ''));
}

describe('bench memory-backed directory (the PUT figure’s server without a disk)', () => {
  it('takes the first candidate that is a tmpfs mount, skipping missing ones and ones on a disk', async () => {
    const onDisk = await mkdtemp(join(tmpdir(), 'dashcd-memory-dir-'));
    try {
      const shmIsTmpfs = tmpfsMounts().has('/dev/shm');
      const diskIsTmpfs = tmpfsMounts().has(tmpdir());
      expect(await memoryBackedDir(['/no/such/dir', '/dev/shm'])).toBe(shmIsTmpfs ? '/dev/shm' : undefined);
      expect(await memoryBackedDir([onDisk])).toBe(diskIsTmpfs ? onDisk : undefined);
      expect(await memoryBackedDir([])).toBeUndefined();
    } finally {
      await rm(onDisk, { recursive: true, force: true });
    }
  });

  it('gives a fresh directory and removes it afterwards, also when the body throws', async () => {
    const root = await mkdtemp(join(tmpdir(), 'dashcd-memory-root-'));
    try {
      let used = '';
      const answer = await withTempDirIn(root, 'put-', async (dir) => {
        used = dir;
        await writeFile(join(dir, 'file'), 'x');
        return 42;
      });
      expect(answer).toBe(42);
      expect(used.startsWith(join(root, 'put-'))).toBe(true);
      expect(existsSync(used)).toBe(false);
      await expect(withTempDirIn(root, 'put-', async (dir) => {
        used = dir;
        throw new Error('boom');
      })).rejects.toThrow('boom');
      expect(existsSync(used)).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
