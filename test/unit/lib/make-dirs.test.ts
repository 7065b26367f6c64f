import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mkdirDurable } from '../../../src/lib/durable-file.js';
import { nodeFs, type FsLayer } from '../../../src/lib/fs-layer.js';
import { makeDirs } from '../../../src/lib/make-dirs.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let dir = '';
tempDirPerTest('dashcd-make-dirs-', (created) => (dir = created));

describe('makeDirs', () => {
  it('makes a folder and every missing one above it, and does nothing for a folder that is there', async () => {
    const deep = join(dir, 'a', 'b', 'c');
    await makeDirs(deep, 0o700);
    expect((await stat(deep)).isDirectory()).toBe(true);
    expect((await stat(join(dir, 'a'))).mode & 0o777).toBe(0o700);
    await makeDirs(deep);
    await mkdir(join(dir, 'x'));
    await makeDirs(join(dir, 'x'));
    await Promise.all(Array.from({ length: 8 }, () => makeDirs(join(dir, 'race', 'same'))));
    expect(existsSync(join(dir, 'race', 'same'))).toBe(true);
  });

  it('answers the folders it made, outermost first, and none for a folder that was there', async () => {
    expect(await makeDirs(join(dir, 'p', 'q', 'r'))).toEqual([join(dir, 'p'), join(dir, 'p', 'q'), join(dir, 'p', 'q', 'r')]);
    expect(await makeDirs(join(dir, 'p', 'q', 's'))).toEqual([join(dir, 'p', 'q', 's')]);
    expect(await makeDirs(join(dir, 'p'))).toEqual([]);
  });

  it('fails as mkdir does where a file stands in the way', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(makeDirs(join(dir, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(makeDirs(join(dir, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('fails, instead of looping for ever, where mkdir answers ENOENT under a folder that exists (procfs)', async () => {
    // Node's own recursive mkdir spun at full CPU on this, and `dashcd serve --data /proc/nope` never answered.
    await expect(makeDirs('/proc/dashcd-nope/x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('mkdirDurable', () => {
  /** Records which folders are synced: open(folder, 'r') then sync. */
  function recordingFs(synced: string[]): FsLayer {
    return {
      ...nodeFs,
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        return { ...handle, sync: async () => (synced.push(path.slice(dir.length) || '/'), handle.sync()) };
      },
    };
  }

  it('makes each new folder’s entry durable in its parent, and says whether the folder was made', async () => {
    const synced: string[] = [];
    expect(await mkdirDurable(join(dir, 'a', 'b', 'c'), recordingFs(synced))).toBe(true);
    expect(synced).toEqual(['/', '/a', '/a/b']);
  });

  it('syncs the entry of a folder that was there (an earlier run may have died before its sync), and says it made none', async () => {
    await mkdir(join(dir, 'kept'));
    const synced: string[] = [];
    expect(await mkdirDurable(join(dir, 'kept'), recordingFs(synced))).toBe(false);
    expect(synced).toEqual(['/']);
  });

  it('fails where a file stands in the way', async () => {
    await writeFile(join(dir, 'file'), 'x');
    await expect(mkdirDurable(join(dir, 'file'))).rejects.toMatchObject({ code: 'EEXIST' });
  });
});
