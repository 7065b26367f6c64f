import { execFileSync, spawn } from 'node:child_process';
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catFileBlobs, writeCheckout, type BlobReader } from '../../../src/source/tree-checkout.js';
import type { TreeFile } from '../../../src/source/tree-listing.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

let root = '';
tempDirPerTest('dashcd-tree-checkout-', (made) => (root = made));

/** Blobs from memory, recording what was asked for. */
function memoryBlobs(blobs: Record<string, string>): BlobReader & { asked: string[][] } {
  const asked: string[][] = [];
  const reader: BlobReader = async (oids, onBlob) => {
    asked.push([...oids]);
    for (const oid of oids) await onBlob(oid, Buffer.from(blobs[oid] ?? ''));
  };
  return Object.assign(reader, { asked });
}

const file = (path: string, oid: string, size: number): TreeFile => ({ path, oid, size });

describe('writeCheckout', () => {
  it('writes each file with its blob, in its folders, a blob shared by two files asked for once', async () => {
    const blobs = memoryBlobs({ one: 'v: 1\n', two: 'v: 2\n' });
    await writeCheckout(root, [file('dashboards/a.yaml', 'one', 5), file('dashboards/team/b.yaml', 'two', 5), file('dashcd.yaml', 'one', 5)], blobs, 100);
    expect(await readFile(join(root, 'dashboards/a.yaml'), 'utf8')).toBe('v: 1\n');
    expect(await readFile(join(root, 'dashboards/team/b.yaml'), 'utf8')).toBe('v: 2\n');
    expect(await readFile(join(root, 'dashcd.yaml'), 'utf8')).toBe('v: 1\n');
    expect(blobs.asked).toEqual([['one', 'two']]);
  });

  it('writes a symlink as a plain file holding its target', async () => {
    await writeCheckout(root, [file('dashboards/leak.yaml', 'link', 11)], memoryBlobs({ link: '/etc/passwd' }), 100);
    expect((await lstat(join(root, 'dashboards/leak.yaml'))).isSymbolicLink()).toBe(false);
    expect(await readFile(join(root, 'dashboards/leak.yaml'), 'utf8')).toBe('/etc/passwd');
  });

  it('makes a file past the largest written a sparse file of its size, its blob never read; one at the limit is written', async () => {
    const blobs = memoryBlobs({ small: '12345', big: 'never read' });
    await writeCheckout(root, [file('d/at-limit.yaml', 'small', 5), file('d/over.yaml', 'big', 6 * 1024 * 1024)], blobs, 5);
    expect(blobs.asked).toEqual([['small']]);
    expect(await readFile(join(root, 'd/at-limit.yaml'), 'utf8')).toBe('12345');
    const over = await stat(join(root, 'd/over.yaml'));
    expect(over.size).toBe(6 * 1024 * 1024);
    expect(over.blocks * 512).toBeLessThan(64 * 1024);
  });

  it('writes nothing and asks for no blob for an empty commit', async () => {
    const blobs = memoryBlobs({});
    await writeCheckout(root, [], blobs, 100);
    expect(await readdir(root)).toEqual([]);
    expect(blobs.asked).toEqual([[]]);
  });
});

describe('catFileBlobs: blobs streamed from a real git', () => {
  const gitIn = (gitDir: string) => (args: readonly string[]) => spawn('git', ['--git-dir', gitDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const store = async (texts: readonly string[]): Promise<{ gitDir: string; oids: string[] }> => {
    const gitDir = join(root, 'repo.git');
    execFileSync('git', ['init', '--quiet', '--bare', gitDir]);
    const oids = texts.map((text) => execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: text }).toString().trim());
    return { gitDir, oids };
  };

  it('hands over every blob asked for, in order, the large ones whole', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024 + 17);
    const { gitDir, oids } = await store(['a: 1\n', big, '']);
    const got: [string, number][] = [];
    await catFileBlobs(gitIn(gitDir))(oids, async (oid, bytes) => void got.push([oid, bytes.length]));
    expect(got).toEqual([
      [oids[0], 5],
      [oids[1], big.length],
      [oids[2], 0],
    ]);
  });

  it('rejects an object git does not have, and a git that fails, with its reason', async () => {
    const { gitDir, oids } = await store(['a: 1\n']);
    await expect(catFileBlobs(gitIn(gitDir))([...oids, 'f'.repeat(40)], async () => undefined)).rejects.toThrow(/git cat-file: unexpected "f{40} missing"/);
    const failed = await catFileBlobs(gitIn(join(root, 'no-such.git')))(oids, async () => undefined).then(() => undefined, (error: unknown) => error as Error);
    expect(failed?.message).toMatch(/^git cat-file failed: fatal: not a git repository.*[^\n]$/);
    // No git at all: the spawn's own error.
    const missing = (args: readonly string[]) => spawn('no-such-git-binary', [...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    await expect(catFileBlobs(missing)(oids, async () => undefined)).rejects.toThrow(/ENOENT/);
  });

  it('rejects when writing a blob fails, and asks git for nothing when there is nothing to read', async () => {
    const { gitDir, oids } = await store(['a: 1\n', 'b: 2\n']);
    await expect(catFileBlobs(gitIn(gitDir))(oids, async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    let spawned = 0;
    await catFileBlobs((args) => (spawned++, gitIn(gitDir)(args)))([], async () => undefined);
    expect(spawned).toBe(0);
  });
});
