import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs } from '../../../src/lib/fs-layer.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let dir: string;
tempDirPerTest('dashcd-fs-layer-', (created) => (dir = created));

describe('nodeFs', () => {
  it('round-trips a large buffer and a string written through one handle', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 7, 0x61);
    const handle = await nodeFs.open(join(dir, 'big'), 'wx', 0o600);
    await handle.write(big);
    await handle.write('tail ✓');
    await handle.sync();
    await handle.close();
    const back = await readFile(join(dir, 'big'));
    expect(back.length).toBe(big.length + Buffer.byteLength('tail ✓'));
    expect(back.subarray(big.length).toString()).toBe('tail ✓');
  });

  it('closes a handle once: a second close never closes the descriptor a later open was given', async () => {
    const first = await nodeFs.open(join(dir, 'one'), 'wx');
    await first.close();
    const second = await nodeFs.open(join(dir, 'two'), 'wx');
    await first.close();
    await second.write('still open');
    await second.close();
    expect(await readFile(join(dir, 'two'), 'utf8')).toBe('still open');
  });

  it('rejects with the errno of the failing call, and renames and unlinks', async () => {
    await writeFile(join(dir, 'a'), 'x');
    await expect(nodeFs.open(join(dir, 'a'), 'wx')).rejects.toMatchObject({ code: 'EEXIST' });
    await nodeFs.rename(join(dir, 'a'), join(dir, 'b'));
    expect(await readFile(join(dir, 'b'), 'utf8')).toBe('x');
    await nodeFs.unlink(join(dir, 'b'));
    await expect(nodeFs.unlink(join(dir, 'b'))).rejects.toMatchObject({ code: 'ENOENT' });
    await nodeFs.mkdir(join(dir, 'p', 'q'));
    await nodeFs.mkdir(join(dir, 'p', 'q'));
  });
});
