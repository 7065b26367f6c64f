import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../src/archive/archive-error.js';
import { emptyStream, readCheckpoint, streamKey, writeCheckpoint, type Checkpoint } from '../../../src/archive/checkpoint.js';
import { nodeFs, type FsLayer } from '../../../src/lib/fs-layer.js';
import { feedScratchPerTest } from '../../helpers/scratch.js';

const scratch = feedScratchPerTest('dashcd-checkpoint-');

/** A checkpoint as a pull of the specification example events leaves it: two streams, one mid-run. */
const CHECKPOINT: Checkpoint = {
  version: 1,
  env: 'local',
  updatedAt: '2018-03-20T09:42:09.000Z',
  streams: {
    all: {
      watermark: 1521542929000,
      horizon: 1521042929000,
      run: null,
    },
    'eventType=SLOW_DISK': { watermark: null, horizon: null, run: { from: 1521042929000, to: 1521542929000, position: 1521300000000 } },
  },
};

async function readError(dir: string): Promise<unknown> {
  return readCheckpoint(dir, 'local').then(
    () => expect.unreachable('the checkpoint was accepted'),
    (error: unknown) => error,
  );
}

describe('streamKey', () => {
  it('keeps unfiltered progress under `all`, and a filter under its query string (keys of checkpoint files on disk)', () => {
    expect(streamKey({})).toBe('all');
    expect(streamKey({ eventType: '', entityId: '' })).toBe('all');
    expect(streamKey({ eventType: 'SLOW_DISK' })).toBe('eventType=SLOW_DISK');
    expect(streamKey({ entityId: 'HOST-0000000000000007' })).toBe('entityId=HOST-0000000000000007');
    expect(streamKey({ entityId: 'HOST-0000000000000007', eventType: 'SLOW_DISK' })).toBe('eventType=SLOW_DISK&entityId=HOST-0000000000000007');
  });
});

describe('emptyStream', () => {
  it('has no watermark, no horizon and no run', () => {
    expect(emptyStream()).toEqual({ watermark: null, horizon: null, run: null });
  });

  it('is a fresh value each time: filling one stream never fills another', () => {
    const first = emptyStream();
    first.watermark = 1;
    expect(emptyStream().watermark).toBeNull();
  });
});

describe('readCheckpoint', () => {
  it('starts fresh when the environment has no checkpoint yet', async () => {
    expect(await readCheckpoint(scratch.dir, 'prod')).toEqual({ version: 1, env: 'prod', updatedAt: '1970-01-01T00:00:00.000Z', streams: {} });
  });

  it('reads back what writeCheckpoint wrote, as one JSON line in _checkpoint.json', async () => {
    await writeCheckpoint(scratch.dir, CHECKPOINT);
    const text = await readFile(join(scratch.dir, '_checkpoint.json'), 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(2);
    expect(await readCheckpoint(scratch.dir, 'local')).toEqual(CHECKPOINT);
  });

  it('says a file that is not JSON should be deleted, keeping the parser error as cause', async () => {
    await writeFile(join(scratch.dir, '_checkpoint.json'), '{"version":1,');
    const error = (await readError(scratch.dir)) as ArchiveError;
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.code).toBe('BAD_CHECKPOINT');
    expect(error.message).toBe(`${join(scratch.dir, '_checkpoint.json')} is not JSON — delete it to pull again from --since (the archive skips versions it holds)`);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it.each([
    ['another version', { ...CHECKPOINT, version: 2 }],
    ['a stream without its watermark', { ...CHECKPOINT, streams: { all: { horizon: null, run: null } } }],
    ['a run without a position', { ...CHECKPOINT, streams: { all: { ...emptyStream(), run: { from: 1, to: 2 } } } }],
    ['an array', []],
  ])('refuses JSON that is not a dashcd checkpoint (%s), naming the first problem', async (_what, content) => {
    await writeFile(join(scratch.dir, '_checkpoint.json'), JSON.stringify(content));
    const error = (await readError(scratch.dir)) as ArchiveError;
    expect(error).toBeInstanceOf(ArchiveError);
    expect(error.code).toBe('BAD_CHECKPOINT');
    const [head, problem, tail] = error.message.split(/ \((.+)\) /);
    expect(head).toBe(`${join(scratch.dir, '_checkpoint.json')} is not a dashcd checkpoint`);
    expect(problem).toMatch(/^Invalid input/);
    expect(tail).toBe('— delete it to pull again from --since');
  });

  it('reads a checkpoint an earlier version wrote with its open events in it, leaving them out (the partitions hold them)', async () => {
    const open = { '5915682011263205071_1521042929000': { startTime: 1521042929000, entityId: 'HOST-0000000000000007' } };
    const earlier = { ...CHECKPOINT, streams: { ...CHECKPOINT.streams, all: { ...CHECKPOINT.streams['all'], open } } };
    await writeFile(join(scratch.dir, '_checkpoint.json'), JSON.stringify(earlier));
    expect(await readCheckpoint(scratch.dir, 'local')).toEqual(CHECKPOINT);
  });

  it('passes on a read failure other than a missing file', async () => {
    await mkdir(join(scratch.dir, '_checkpoint.json'));
    const error = (await readError(scratch.dir)) as NodeJS.ErrnoException;
    expect(error).not.toBeInstanceOf(ArchiveError);
    expect(error.code).toBe('EISDIR');
  });
});

describe('writeCheckpoint', () => {
  it('replaces the checkpoint through the given fs layer: temp file, fsync, rename, directory fsync', async () => {
    const calls: string[] = [];
    const recording: FsLayer = {
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        const label = path.includes('.tmp-') ? 'temp' : path === scratch.dir ? 'dir' : path;
        calls.push(`open ${label}`);
        return { write: (data) => handle.write(data), sync: async () => (calls.push(`sync ${label}`), handle.sync()), close: () => handle.close() };
      },
      rename: async (from, to) => (calls.push(`rename temp ${to === join(scratch.dir, '_checkpoint.json') ? '_checkpoint.json' : to}`), nodeFs.rename(from, to)),
      unlink: (path) => nodeFs.unlink(path),
      mkdir: (path) => nodeFs.mkdir(path),
      truncate: (path, length) => nodeFs.truncate(path, length),
    };
    await writeCheckpoint(scratch.dir, CHECKPOINT, recording);
    expect(calls).toEqual(['open temp', 'sync temp', 'rename temp _checkpoint.json', 'open dir', 'sync dir']);
    expect(await readCheckpoint(scratch.dir, 'local')).toEqual(CHECKPOINT);
  });
});
