import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppendHandles } from '../../src/archive/append-handles.js';
import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';

/** The real file system with a byte budget: a write past it writes what fits, then fails with ENOSPC, as write(2) does. */
function budgetFs(): { fs: FsLayer; setBudget(bytes: number): void } {
  let left = Number.POSITIVE_INFINITY;
  const fs: FsLayer = {
    ...nodeFs,
    async open(path, flags, mode) {
      const handle = await nodeFs.open(path, flags, mode);
      return {
        ...handle,
        async write(data) {
          const buffer = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
          const fits = buffer.subarray(0, Math.max(0, Math.min(left, buffer.length)));
          left -= fits.length;
          if (fits.length > 0) await handle.write(fits);
          if (fits.length < buffer.length) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
  };
  return { fs, setBudget: (bytes) => void (left = bytes) };
}

describe('append handles', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-append-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends nothing more to a file after an append to it failed, so a line cut short stays its last', async () => {
    const { fs, setBudget } = budgetFs();
    const handles = createAppendHandles(fs);
    const file = join(dir, 'events.jsonl');
    const other = join(dir, 'other.jsonl');
    await handles.appendDurable(file, '{"a":1}\n');
    setBudget(4);
    await expect(handles.appendDurable(file, '{"b":2}\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    // Room again (another file's temp removed, say): a later page's lines must still not follow the torn one.
    setBudget(Number.POSITIVE_INFINITY);
    await expect(handles.appendDurable(file, '{"c":3}\n')).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(await readFile(file, 'utf8')).toBe('{"a":1}\n{"b"');
    // Other files go on.
    await handles.appendDurable(other, '{"d":4}\n');
    expect(await readFile(other, 'utf8')).toBe('{"d":4}\n');
    await handles.closeAll();
  });
});
