import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryBackedDir } from '../../../bench/lib/memory-dir.js';
import { withTempDirIn } from '../../../bench/lib/temp-dir.js';

/**
 * Whether `path` lies on a tmpfs, read from the kernel's mount table (the mount point that is the longest prefix of
 * the path) rather than from statfs, which the code uses.
 */
function onTmpfs(path: string): boolean {
  if (!existsSync('/proc/mounts')) return false;
  const mounts = readFileSync('/proc/mounts', 'utf8').split('\n').map((line) => line.split(' '));
  const containing = mounts.filter(([, point = '']) => path === point || path.startsWith(point.endsWith('/') ? point : `${point}/`));
  const innermost = containing.sort((a, b) => (b[1] ?? '').length - (a[1] ?? '').length)[0];
  return innermost?.[2] === 'tmpfs';
}

describe('bench memory-backed directory (the PUT figure’s server without a disk)', () => {
  it('takes the first candidate that is a tmpfs mount with the room asked for, skipping missing ones and ones on a disk', async () => {
    const onDisk = await mkdtemp(join(tmpdir(), 'dashcd-memory-dir-'));
    try {
      const shmIsTmpfs = onTmpfs('/dev/shm');
      const diskIsTmpfs = onTmpfs(onDisk);
      expect(await memoryBackedDir(0, ['/no/such/dir', '/dev/shm'])).toBe(shmIsTmpfs ? '/dev/shm' : undefined);
      expect(await memoryBackedDir(0, [onDisk])).toBe(diskIsTmpfs ? onDisk : undefined);
      expect(await memoryBackedDir(0, [])).toBeUndefined();
      // A tmpfs too small for what will be written there is no candidate (a container's 64 MB /dev/shm).
      expect(await memoryBackedDir(Number.MAX_SAFE_INTEGER, ['/dev/shm'])).toBeUndefined();
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
