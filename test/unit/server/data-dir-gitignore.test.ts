import { execFile } from 'node:child_process';
import { chmod, mkdir, readFile, readdir, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeFs, type FsLayer } from '../../../src/lib/fs-layer.js';
import { acquireOwnership } from '../../../src/server/data-dir.js';
import { TEMP_MARKER } from '../../../src/lib/durable-file.js';
import { ensureDataDirRoot, ROOT_TEMP_GRACE_MS } from '../../../src/server/data-dir-root.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

const git = async (cwd: string, ...args: string[]): Promise<string> => (await promisify(execFile)('git', args, { cwd })).stdout;

let root: string;
tempDirPerTest('dashcd-gitignore-', (created) => (root = created));

async function own(dataDir: string): Promise<void> {
  await (await acquireOwnership(dataDir)).release();
}

describe('the data dir keeps itself out of git', () => {
  it('a .dashcd dir dashcd creates in a repository holds a .gitignore of "*", so git status stays clean', async () => {
    await git(root, 'init', '-q');
    const dataDir = join(root, '.dashcd');
    const ownership = await acquireOwnership(dataDir);
    await mkdir(join(dataDir, 'env', 'local'), { recursive: true });
    await writeFile(join(dataDir, 'env', 'local', 'tokens.json'), '{}');
    expect(await readFile(join(dataDir, '.gitignore'), 'utf8')).toBe('*\n');
    expect(await git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    await ownership.release();
  });

  it('a data dir of another name that dashcd creates gets one too', async () => {
    await own(join(root, 'state', 'data'));
    expect(await readFile(join(root, 'state', 'data', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('an existing .dashcd without one (made by token create or an older dashcd) gets one', async () => {
    await mkdir(join(root, '.dashcd', 'env', 'local'), { recursive: true });
    await own(join(root, '.dashcd'));
    expect(await readFile(join(root, '.dashcd', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('never replaces an existing .gitignore', async () => {
    await mkdir(join(root, '.dashcd'));
    await writeFile(join(root, '.dashcd', '.gitignore'), 'owner.json\n');
    await own(join(root, '.dashcd'));
    expect(await readFile(join(root, '.dashcd', '.gitignore'), 'utf8')).toBe('owner.json\n');
  });

  it('writes nothing into an existing folder of another name (--data . in a repository root must not ignore it)', async () => {
    await own(root);
    expect(await readdir(root)).toEqual([]);
  });

  it('writes the file durably: temp file, fsync, rename, then fsync of the data dir', async () => {
    const steps: string[] = [];
    const name = (path: string): string => path.slice(root.length + 1).replace(/\.tmp-.*$/, '.tmp');
    const recording: FsLayer = {
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        steps.push(`open ${name(path)} ${flags}`);
        return {
          write: async (data) => (steps.push(`write ${name(path)}`), handle.write(data)),
          sync: async () => (steps.push(`sync ${name(path)}`), handle.sync()),
          close: () => handle.close(),
        };
      },
      rename: async (from, to) => (steps.push(`rename ${name(from)} ${name(to)}`), nodeFs.rename(from, to)),
      unlink: (path) => nodeFs.unlink(path),
      mkdir: async (path) => (steps.push(`mkdir ${name(path)}`), nodeFs.mkdir(path)),
      truncate: (path, length) => nodeFs.truncate(path, length),
    };
    await ensureDataDirRoot(join(root, '.dashcd'), recording);
    const from = steps.indexOf('mkdir .dashcd');
    expect(steps.slice(from)).toEqual([
      'mkdir .dashcd',
      expect.stringMatching(/^open {1,2}r$/),
      expect.stringMatching(/^sync ?$/),
      'open .dashcd/.gitignore.tmp wx',
      'write .dashcd/.gitignore.tmp',
      'sync .dashcd/.gitignore.tmp',
      'rename .dashcd/.gitignore.tmp .dashcd/.gitignore',
      'open .dashcd r',
      'sync .dashcd',
    ]);
  });
});

describe('the data dir root is swept of temp files that crashed writes left', () => {
  /** A temp file as writeFileDurable names them, last written `ageMs` ago. */
  async function leftover(path: string, ageMs = ROOT_TEMP_GRACE_MS + 60_000): Promise<string> {
    await writeFile(path, 'half');
    const at = new Date(Date.now() - ageMs);
    await utimes(path, at, at);
    return path;
  }

  it('the next owner deletes the root\'s old temp files, and writes the .gitignore the crash never finished', async () => {
    const dataDir = join(root, '.dashcd');
    await mkdir(join(dataDir, 'env', 'local'), { recursive: true });
    await leftover(join(dataDir, `.gitignore${TEMP_MARKER}0a1b2c3d4e5f0`));
    await leftover(join(dataDir, `owner.json${TEMP_MARKER}0a1b2c3d4e5f`));
    await own(dataDir);
    expect((await readdir(dataDir)).sort()).toEqual(['.gitignore', 'env']);
    expect(await readFile(join(dataDir, '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('keeps files without the marker, temp files below the root, and temp files too young to be a crash\'s', async () => {
    const dataDir = join(root, '.dashcd');
    await mkdir(join(dataDir, 'env', 'local'), { recursive: true });
    await leftover(join(dataDir, 'notes.txt'));
    await leftover(join(dataDir, 'env', 'local', `tokens.json${TEMP_MARKER}0a1b2c3d4e5f0`));
    await leftover(join(dataDir, `.gitignore${TEMP_MARKER}starting`), 1_000);
    await mkdir(join(dataDir, `folder${TEMP_MARKER}x`));
    await own(dataDir);
    expect((await readdir(dataDir)).sort()).toEqual(['.gitignore', `.gitignore${TEMP_MARKER}starting`, 'env', `folder${TEMP_MARKER}x`, 'notes.txt']);
    expect(await readdir(join(dataDir, 'env', 'local'))).toEqual([`tokens.json${TEMP_MARKER}0a1b2c3d4e5f0`]);
  });

  it('a process refused the data dir (it has a live owner) deletes nothing', async () => {
    const dataDir = join(root, '.dashcd');
    const owner = await acquireOwnership(dataDir);
    const temp = await leftover(join(dataDir, `owner.json${TEMP_MARKER}0a1b2c3d4e5f`));
    await expect(acquireOwnership(dataDir)).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED' });
    expect(await readdir(dataDir)).toContain(temp.slice(dataDir.length + 1));
    await owner.release();
  });
});

describe('the data dir is private to its owner', () => {
  const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

  it('a data dir dashcd creates, and a .dashcd made before (0755), are entered by their owner only', async () => {
    const made = join(root, 'state', 'data');
    await own(made);
    expect(await modeOf(made)).toBe(0o700);
    const older = join(root, 'older', '.dashcd');
    await mkdir(older, { recursive: true, mode: 0o755 });
    await chmod(older, 0o755);
    await ensureDataDirRoot(older);
    expect(await modeOf(older)).toBe(0o700);
    // The parents dashcd made on the way keep the usual mode: only the data dir holds what is private.
    expect(await modeOf(join(root, 'state'))).not.toBe(0o700);
  });

  it('a folder of the user\'s own that --data names (--data . in a shared repository) keeps its mode', async () => {
    const shared = join(root, 'shared-repo');
    await mkdir(shared);
    await chmod(shared, 0o775);
    await ensureDataDirRoot(shared);
    expect(await modeOf(shared)).toBe(0o775);
  });

  it('a private data dir is left as it is', async () => {
    const dir = join(root, 'private');
    await mkdir(dir, { mode: 0o700 });
    await chmod(dir, 0o500);
    await ensureDataDirRoot(dir);
    expect(await modeOf(dir)).toBe(0o500);
    await chmod(dir, 0o700);
  });
});
