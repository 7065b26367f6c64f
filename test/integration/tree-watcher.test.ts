import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchTree, type TreeWatcher } from '../../src/daemon/tree-watcher.js';
import { waitFor } from '../helpers/wait.js';

interface Seen {
  kind: 'file' | 'tree' | 'error';
  path: string;
}

let base: string | undefined;
let watcher: TreeWatcher | undefined;
afterEach(async () => {
  watcher?.close();
  if (base) await rm(base, { recursive: true, force: true });
  base = watcher = undefined;
});

/** A watcher over `root` (under a fresh temp dir) recording what it reports: `.yaml` files wanted, dot folders skipped. */
async function watching(layout: (root: string) => Promise<void> = async (root) => mkdir(root)): Promise<{ root: string; seen: Seen[] }> {
  base = await mkdtemp(join(tmpdir(), 'dashcd-tree-watcher-'));
  const root = join(base, 'dashboards');
  await layout(root);
  const seen: Seen[] = [];
  watcher = watchTree(root, {
    skipFolder: (path) => basename(path).startsWith('.'),
    wantsFile: (path) => path.endsWith('.yaml'),
    onFile: (path) => seen.push({ kind: 'file', path }),
    onTree: (path) => seen.push({ kind: 'tree', path }),
    onError: (_error, path) => seen.push({ kind: 'error', path }),
  });
  await watcher.ready;
  return { root, seen };
}

const has = (seen: readonly Seen[], kind: Seen['kind'], path: string): boolean => seen.some((s) => s.kind === kind && s.path === path);

/** Waits for the report, then returns everything reported so far. */
async function until(seen: Seen[], kind: Seen['kind'], path: string): Promise<Seen[]> {
  await waitFor(() => has(seen, kind, path), { what: `${kind} ${path}`, intervalMs: 10 });
  return [...seen];
}

describe('watchTree', () => {
  it('reports nothing for the files already there, then a write to one of them as that file', async () => {
    const { root, seen } = await watching(async (r) => {
      await mkdir(join(r, 'team', 'deep'), { recursive: true });
      await writeFile(join(r, 'a.yaml'), 'a: 1\n');
      await writeFile(join(r, 'team', 'deep', 'b.yaml'), 'b: 1\n');
    });
    expect(seen).toEqual([]);
    await writeFile(join(root, 'team', 'deep', 'b.yaml'), 'b: 2\n');
    const after = await until(seen, 'file', join(root, 'team', 'deep', 'b.yaml'));
    expect(after.every((s) => s.kind === 'file' && s.path === join(root, 'team', 'deep', 'b.yaml'))).toBe(true);
  });

  it('reports a new file, and an editor saving through a temp file renamed over the original, as a file each', async () => {
    const { root, seen } = await watching(async (r) => {
      await mkdir(r);
      await writeFile(join(r, 'saved.yaml'), 'v: 1\n');
    });
    await writeFile(join(root, 'new.yaml'), 'n: 1\n');
    await until(seen, 'file', join(root, 'new.yaml'));
    await writeFile(join(root, 'saved.yaml.tmp-123'), 'v: 2\n');
    await rename(join(root, 'saved.yaml.tmp-123'), join(root, 'saved.yaml'));
    const after = await until(seen, 'file', join(root, 'saved.yaml'));
    // The temp file is not wanted: neither its writes nor its going away are reported.
    expect(after.filter((s) => s.path.includes('tmp-123'))).toEqual([]);
    expect(after.some((s) => s.kind === 'tree')).toBe(false);
  });

  it('reports a removed wanted file as a tree change, and leaves out files it does not want', async () => {
    const { root, seen } = await watching(async (r) => {
      await mkdir(r);
      await writeFile(join(r, 'gone.yaml'), 'g: 1\n');
      await writeFile(join(r, 'notes.txt'), 'x\n');
    });
    await writeFile(join(root, 'notes.txt'), 'y\n');
    await rm(join(root, 'notes.txt'));
    await rm(join(root, 'gone.yaml'));
    const after = await until(seen, 'tree', join(root, 'gone.yaml'));
    expect(after.filter((s) => s.path.endsWith('notes.txt'))).toEqual([]);
    expect(after.some((s) => s.kind === 'file')).toBe(false);
  });

  it('reports a new folder as a tree change once it watches it, then the files written in it', async () => {
    const { root, seen } = await watching();
    await mkdir(join(root, 'team'));
    await until(seen, 'tree', join(root, 'team'));
    await mkdir(join(root, 'team', 'sub'));
    await until(seen, 'tree', join(root, 'team', 'sub'));
    await writeFile(join(root, 'team', 'sub', 'c.yaml'), 'c: 1\n');
    await until(seen, 'file', join(root, 'team', 'sub', 'c.yaml'));
  });

  it('reports a folder removed or renamed away as a tree change, and watches it again where it lands', async () => {
    const { root, seen } = await watching(async (r) => {
      await mkdir(join(r, 'old'), { recursive: true });
      await mkdir(join(r, 'doomed'), { recursive: true });
      await writeFile(join(r, 'old', 'a.yaml'), 'a: 1\n');
    });
    await rm(join(root, 'doomed'), { recursive: true });
    await until(seen, 'tree', join(root, 'doomed'));
    await rename(join(root, 'old'), join(root, 'new'));
    await until(seen, 'tree', join(root, 'old'));
    await until(seen, 'tree', join(root, 'new'));
    await writeFile(join(root, 'new', 'a.yaml'), 'a: 2\n');
    await until(seen, 'file', join(root, 'new', 'a.yaml'));
  });

  it('does not watch into skipped folders', async () => {
    const { root, seen } = await watching(async (r) => void (await mkdir(join(r, '.git'), { recursive: true })));
    await writeFile(join(root, '.git', 'HEAD.yaml'), 'ref: x\n');
    await mkdir(join(root, '.cache'));
    await writeFile(join(root, 'after.yaml'), 'a: 1\n');
    const after = await until(seen, 'file', join(root, 'after.yaml'));
    expect(after.filter((s) => s.path.includes(`${root}/.`))).toEqual([]);
  });

  it('reports a link with a wanted name as that file, whatever it points at, and leaves linked folders alone', async () => {
    const { root, seen } = await watching();
    await writeFile(join(base ?? '', 'outside.yaml'), 'o: 1\n');
    await symlink(join(base ?? '', 'outside.yaml'), join(root, 'linked.yaml'));
    await until(seen, 'file', join(root, 'linked.yaml'));
    await symlink(join(base ?? '', 'nowhere.yaml'), join(root, 'broken.yaml'));
    await until(seen, 'file', join(root, 'broken.yaml'));
    await mkdir(join(base ?? '', 'elsewhere'));
    await symlink(join(base ?? '', 'elsewhere'), join(root, 'linked-folder'));
    await writeFile(join(root, 'after.yaml'), 'a: 1\n');
    const after = await until(seen, 'file', join(root, 'after.yaml'));
    // The loader does not walk linked folders (discover-files.ts): nothing to report, no full pass for it.
    expect(after.filter((s) => s.path.includes('linked-folder'))).toEqual([]);
  });

  it('waits for a missing root, reports it appearing and going away as tree changes, and watches it once there', async () => {
    const { root, seen } = await watching(async () => undefined);
    expect(seen).toEqual([]);
    await mkdir(join(root, 'team'), { recursive: true });
    await until(seen, 'tree', root);
    await waitFor(async () => {
      // The tree is walked after the root's event: a write races that walk, so it is repeated until reported.
      await writeFile(join(root, 'team', 'a.yaml'), `t: ${Date.now()}\n`);
      return has(seen, 'file', join(root, 'team', 'a.yaml'));
    }, { what: 'a file in the new root reported', intervalMs: 20 });
    const before = seen.filter((s) => s.kind === 'tree' && s.path === root).length;
    await rm(root, { recursive: true });
    await waitFor(() => seen.filter((s) => s.kind === 'tree' && s.path === root).length > before, { what: 'the root going away reported', intervalMs: 10 });
    await mkdir(root);
    await waitFor(() => seen.filter((s) => s.kind === 'tree' && s.path === root).length > before + 1, { what: 'the root coming back reported', intervalMs: 10 });
  });

  it('reports nothing once closed', async () => {
    const { root, seen } = await watching();
    watcher?.close();
    const count = seen.length;
    await writeFile(join(root, 'late.yaml'), 'l: 1\n');
    await mkdir(join(root, 'late'));
    // A second watcher over the same folder sees the writes: the first, closed, was told of them and kept quiet.
    const other: Seen[] = [];
    const second = watchTree(root, {
      skipFolder: () => false,
      wantsFile: () => true,
      onFile: (path) => other.push({ kind: 'file', path }),
      onTree: (path) => other.push({ kind: 'tree', path }),
      onError: (_e, path) => other.push({ kind: 'error', path }),
    });
    try {
      await second.ready;
      await writeFile(join(root, 'later.yaml'), 'l: 2\n');
      await until(other, 'file', join(root, 'later.yaml'));
    } finally {
      second.close();
    }
    expect(seen.length).toBe(count);
  });
});
