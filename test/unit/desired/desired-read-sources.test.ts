import { createHash } from 'node:crypto';
import { mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileStamp } from '../../../src/desired/file-stamps.js';
import { readSources, type KnownFiles } from '../../../src/desired/read-sources.js';
import { tempDirPerTest } from '../../helpers/scratch.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let dir: string;
tempDirPerTest('dashcd-read-sources-', (created) => (dir = created));

describe('readSources with known files', () => {

  it('pairs a stamp with the bytes of the same file, even when the path is switched to another between the stat and the read', async () => {
    const path = join(dir, 'a.yaml');
    await writeFile(path, 'dashboardMetadata: {name: first}\n');
    await writeFile(join(dir, 'b.yaml'), 'dashboardMetadata: {name: second, longer: yes}\n');
    const first = await stat(path);
    const noted: { stamp: FileStamp; contentHash: string }[] = [];
    const known: KnownFiles = {
      // Far ahead: every stamp counts as settled, so it is recorded.
      now: () => Date.now() + 60_000,
      knownHash: () => {
        // The moment a stat by path and a read by path could tell two files apart: b is renamed over a.
        renameSync(join(dir, 'b.yaml'), path);
        return undefined;
      },
      noteHash: (_path, stamp, contentHash) => noted.push({ stamp, contentHash }),
    };
    const [read] = readSources(dir, ['a.yaml'], known);
    expect(read?.kind).toBe('read');
    expect(read?.kind === 'read' ? read.source : '').toBe('dashboardMetadata: {name: first}\n');
    expect(noted).toEqual([{ stamp: expect.objectContaining({ ino: first.ino, size: first.size }), contentHash: sha256('dashboardMetadata: {name: first}\n') }]);
  });

  it('reads nothing of a file whose stamp is vouched for, and reads one whose stamp is not', async () => {
    await writeFile(join(dir, 'kept.yaml'), 'kept\n');
    await writeFile(join(dir, 'new.yaml'), 'new\n');
    const keptStamp = await stat(join(dir, 'kept.yaml'));
    const known: KnownFiles = {
      now: () => Date.now(),
      knownHash: (path, stamp) => (path.endsWith('kept.yaml') && stamp.ino === keptStamp.ino ? 'c'.repeat(64) : undefined),
      noteHash: () => undefined,
    };
    const [kept, fresh] = readSources(dir, ['kept.yaml', 'new.yaml'], known);
    expect(kept?.kind === 'read' && kept.contentHash).toBe('c'.repeat(64));
    expect(fresh?.kind === 'read' && fresh.contentHash).toBe(sha256('new\n'));
  });

  it('reports a folder at a file\'s name as unreadable and a missing file as gone, as without known files', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, 'folder.yaml'));
    const known: KnownFiles = { now: () => Date.now(), knownHash: () => undefined, noteHash: () => undefined };
    expect(readSources(dir, ['folder.yaml', 'missing.yaml'], known)).toEqual(readSources(dir, ['folder.yaml', 'missing.yaml']));
    expect(readSources(dir, ['folder.yaml', 'missing.yaml'], known).map((file) => file.kind)).toEqual(['unreadable', 'gone']);
  });
});

describe('readSources reads regular files only', () => {

  it('reports a device, a FIFO and a folder named like dashboard files as unreadable, without reading or waiting on them', async () => {
    // A symlink to /dev/zero was read without end (size 0, no end of file); opening a FIFO waited for a writer.
    await symlink('/dev/zero', join(dir, 'zero.yaml'));
    execFileSync('mkfifo', [join(dir, 'pipe.yaml')]);
    await mkdir(join(dir, 'folder.yaml'));
    await writeFile(join(dir, 'ok.yaml'), 'tiles: []\n');
    for (const known of [undefined, { now: () => 0, knownHash: () => undefined, noteHash: () => undefined }]) {
      const read = readSources(dir, ['zero.yaml', 'pipe.yaml', 'folder.yaml', 'ok.yaml'], known);
      expect(read.map((r) => (r.kind === 'unreadable' ? r.reason : r.kind))).toEqual([
        'not a regular file (a device, a FIFO or a socket)',
        'not a regular file (a device, a FIFO or a socket)',
        'a folder, not a file (EISDIR)',
        'read',
      ]);
    }
  });
});
