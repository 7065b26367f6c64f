import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DirSyncBarrier, writeFileDurable } from '../../../src/lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../../src/lib/fs-layer.js';

type Step = { op: 'rename'; to: string } | { op: 'dir-open' } | { op: 'dir-sync-start' } | { op: 'dir-sync-end' } | { op: 'ack'; file: string };

/** Records renames and directory fsyncs; `failDirSync` makes the next directory fsync fail. */
function recordingFs(steps: Step[], control: { failDirSync: boolean }): FsLayer {
  return {
    ...nodeFs,
    async rename(from, to) {
      await nodeFs.rename(from, to);
      steps.push({ op: 'rename', to });
    },
    async open(path, flags, mode) {
      const handle = await nodeFs.open(path, flags, mode);
      if (flags !== 'r') return handle;
      steps.push({ op: 'dir-open' });
      return {
        write: (data) => handle.write(data),
        close: () => handle.close(),
        async sync() {
          steps.push({ op: 'dir-sync-start' });
          if (control.failDirSync) {
            control.failDirSync = false;
            throw Object.assign(new Error('EIO: dir fsync failed'), { code: 'EIO' });
          }
          await handle.sync();
          steps.push({ op: 'dir-sync-end' });
        },
      };
    },
  };
}

describe('DirSyncBarrier: one directory fsync shared by concurrent writers', () => {
  let dir = '';
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  async function writeMany(count: number, control = { failDirSync: false }) {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-dirsync-'));
    const steps: Step[] = [];
    const fs = recordingFs(steps, control);
    const barrier = new DirSyncBarrier(dir, fs);
    const files = Array.from({ length: count }, (_, i) => join(dir, `f${i}.json`));
    const results = await Promise.allSettled(
      files.map(async (file, i) => {
        await writeFileDurable(file, `{"n":${i}}\n`, { fs, syncDir: () => barrier.sync() });
        steps.push({ op: 'ack', file });
      }),
    );
    return { steps, files, results, fs, barrier };
  }

  it('acknowledges every write only after a directory fsync that started after its rename', async () => {
    const { steps, files } = await writeMany(24);
    for (const file of files) {
      const renamed = steps.findIndex((s) => s.op === 'rename' && s.to === file);
      const acked = steps.findIndex((s) => s.op === 'ack' && s.file === file);
      const syncStart = steps.findIndex((s, i) => i > renamed && s.op === 'dir-sync-start');
      const syncEnd = steps.findIndex((s, i) => i > syncStart && s.op === 'dir-sync-end');
      expect(renamed).toBeGreaterThanOrEqual(0);
      expect(syncStart).toBeGreaterThan(renamed);
      expect(syncEnd).toBeGreaterThan(syncStart);
      expect(acked).toBeGreaterThan(syncEnd);
      expect(await readFile(file, 'utf8')).toMatch(/^\{"n":\d+\}\n$/);
    }
  });

  it('shares directory fsyncs: fewer fsyncs than writes, never two at once', async () => {
    const { steps } = await writeMany(24);
    const starts = steps.filter((s) => s.op === 'dir-sync-start').length;
    expect(starts).toBeLessThan(24);
    let open = 0;
    for (const step of steps) {
      if (step.op === 'dir-sync-start') open += 1;
      if (step.op === 'dir-sync-end') open -= 1;
      expect(open).toBeLessThanOrEqual(1);
    }
  });

  it('a failed directory fsync fails the writes waiting on it, and the barrier keeps working', async () => {
    const { results, barrier, steps } = await writeMany(8, { failDirSync: true });
    const failed = results.filter((r) => r.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'EIO' });
    const before = steps.filter((s) => s.op === 'dir-sync-end').length;
    await expect(barrier.sync()).resolves.toBeUndefined();
    expect(steps.filter((s) => s.op === 'dir-sync-end').length).toBe(before + 1);
  });
});
