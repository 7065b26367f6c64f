import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { pullEvents, type PullEventsOptions } from '../../src/archive/pull-events.js';
import { CliError, ExitCode } from '../../src/cli/exit-codes.js';
import { pullFailure } from '../../src/cli/pull-failure.js';
import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';
import { budgetFs } from '../helpers/budget-fs.js';
import { eventKey, feedFetchPage, generateEvents, type EventsFeedServer } from '../helpers/events-feed-server.js';
import { feedScratchPerTest } from '../helpers/scratch.js';

const DAY = 86_400_000;
const run = promisify(execFile);
const scratch = feedScratchPerTest('dashcd-archive-full-');
/** Room for a few pages of the feed below (so a checkpoint is written first), far from all of it (about 1.5 MB). */
const ROOM = 400 * 1024;

/** Where the archive lives, how full it is, and how to make room. */
interface FullArchive {
  readonly dir: string;
  readonly fs: FsLayer;
  readonly kind: 'tmpfs' | 'injected';
  free(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A real full disk: a 2 MiB tmpfs with a filler file leaving about 400 KiB, where root may mount one. Elsewhere the
 * durable-write seam with a byte budget that writes what fits and then fails with ENOSPC, as write(2) does.
 */
async function fullArchive(root: string): Promise<FullArchive> {
  const dir = join(root, 'archive');
  await mkdir(dir);
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', dir]);
  } catch {
    return budgetArchive(dir, ROOM);
  }
  const filler = join(dir, 'filler');
  await writeFile(filler, Buffer.alloc(2 * 1024 * 1024 - ROOM));
  return { dir, fs: nodeFs, kind: 'tmpfs', free: () => rm(filler), dispose: () => run('umount', [dir]).then(() => undefined) };
}

function budgetArchive(dir: string, bytes: number): FullArchive {
  const { fs, setBudget } = budgetFs(bytes);
  return { dir, fs, kind: 'injected', free: async () => setBudget(Number.POSITIVE_INFINITY), dispose: async () => undefined };
}

let archive: FullArchive | undefined;
afterEach(async () => {
  await archive?.dispose();
  archive = undefined;
});

function pull(feed: EventsFeedServer, full: FullArchive, extra: Partial<PullEventsOptions> = {}): ReturnType<typeof pullEvents> {
  return pullEvents({ fetchPage: feedFetchPage(feed.url), archiveDir: full.dir, env: 'prod', since: { back: 30 * DAY }, signal: new AbortController().signal, fs: full.fs, ...extra });
}

async function archivedIds(dir: string): Promise<string[]> {
  const envDir = join(dir, 'prod');
  const ids: string[] = [];
  for (const name of (await readdir(envDir)).filter((n) => n.startsWith('date='))) {
    const text = await readFile(join(envDir, name, 'events.jsonl'), 'utf8');
    // A line cut short by the full disk is the next run's to remove; only whole lines count as archived.
    for (const line of text.split('\n').slice(0, -1)) ids.push((JSON.parse(line) as { id: string }).id);
  }
  return ids;
}

describe('events pull into a full archive', () => {
  it('stops with exit 4 naming the archive and the disk, keeps a readable checkpoint, and the next run after freeing space loses nothing', async () => {
    const now = Date.now();
    const events = generateEvents({ count: 3000, from: now - 20 * DAY, to: now - 60_000, openShare: 0 });
    const feed = await scratch.startFeed({ events });
    archive = await fullArchive(scratch.dir);

    const error = await pull(feed, archive, { checkpointEveryMs: 0 }).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    const mapped = pullFailure(error, new AbortController().signal, `${archive.dir}/prod`);
    expect(mapped, `${archive.kind}: ${String(error)}`).toBeInstanceOf(CliError);
    expect((mapped as CliError).exitCode).toBe(ExitCode.TargetUnavailable);
    expect((mapped as CliError).message).toBe(
      `the events archive at ${archive.dir}/prod is out of disk space (ENOSPC): free space under ${archive.dir}/prod; the checkpoint is saved: once this is fixed, the same command resumes`,
    );
    const checkpoint = JSON.parse(await readFile(join(archive.dir, 'prod', '_checkpoint.json'), 'utf8')) as { streams: Record<string, unknown> };
    expect(Object.keys(checkpoint.streams)).toEqual(['all']);
    expect((await archivedIds(archive.dir)).length).toBeLessThan(events.length);

    await archive.free();
    await pull(feed, archive);
    const ids = await archivedIds(archive.dir);
    expect(ids.length).toBe(events.length);
    expect(new Set(ids)).toEqual(new Set(events.map(eventKey)));
  });
});
