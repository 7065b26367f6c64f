import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFs, type FileHandleLike, type FsLayer } from '../../../../src/lib/fs-layer.js';
import { silentLogger } from '../../../../src/lib/logger.js';
import { JournaledFiles, replayJournal, type CheckpointLimits } from '../../../../src/server/store/journaled-files.js';
import { readJournal, WriteJournal, type JournalRecord } from '../../../../src/server/store/write-journal.js';
import { folderBytes } from '../../../helpers/folder-bytes.js';
import { countingFs, record } from '../../../helpers/journal-fs.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { waitFor } from '../../../helpers/wait.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';

const texts = (records: readonly JournalRecord[]): Array<[string, string | null]> => records.map(({ id, contents }) => [id, contents && Buffer.from(contents).toString()]);
/** Only checkpoints start a pass: no pause in the writes is ever long enough, and a failed pass is not retried. */
const NEVER = 3_600_000;

/**
 * An fs whose every call from the `at`-th one after `arm()` never returns: what is on disk then is what a process
 * killed at that instant leaves (SIGKILL keeps the page cache, so nothing that returned is lost). `calls` counts the
 * calls made since arming.
 */
function freezingFs(at: number) {
  let armed = false;
  let calls = 0;
  let stopped = false;
  /** Calls made before the kill and not yet done: the kill is only over once they are (see settleKill). */
  let running = 0;
  let onFrozen = (): void => undefined;
  const frozen = new Promise<void>((resolve) => (onFrozen = resolve));
  const opened: FileHandleLike[] = [];
  const ops: string[] = [];
  // A killed process's calls that had started still land (a rename is done or not, never half), but none lands after
  // the replay begins: resolving `frozen` while one ran let a dashboard file's rename from before the kill land over
  // the replay's newer write (a version older than the one acknowledged, once in a busy CI run).
  const settleKill = (): void => {
    if (stopped && running === 0) onFrozen();
  };
  const gate = <T>(run: () => Promise<T>, op = ''): Promise<T> => {
    if (!armed) return run();
    ops.push(op);
    if (calls++ < at) {
      running++;
      return run().finally(() => {
        running--;
        settleKill();
      });
    }
    stopped = true;
    settleKill();
    return new Promise<T>(() => undefined);
  };
  const fs: FsLayer = {
    open: (path, flags, mode) =>
      gate(async () => {
        const handle = await nodeFs.open(path, flags, mode);
        opened.push(handle);
        return { write: (data) => gate(() => handle.write(data)), sync: () => gate(() => handle.sync()), close: () => gate(() => handle.close()) };
      }),
    rename: (from, to) => gate(() => nodeFs.rename(from, to), `rename ${basename(to)}`),
    unlink: (path) => gate(() => nodeFs.unlink(path), `unlink ${basename(path)}`),
    mkdir: (path) => gate(() => nodeFs.mkdir(path)),
    truncate: (path, length) => gate(() => nodeFs.truncate(path, length)),
  };
  return {
    fs,
    frozen,
    arm: () => (armed = true),
    calls: () => calls,
    /** Renames and unlinks made since arming, with the file's name: `rename a.json`. */
    ops: () => ops.filter((op) => op !== ''),
    /** Closes the descriptors the frozen process left open (closing changes no file). */
    release: () => Promise.all(opened.map((handle) => handle.close().catch(() => undefined))),
  };
}

/** The node fs, recording each dashboard file renamed into place (journal generations are renamed too when dropped). */
const recordingFileWrites = (renamed: string[]): FsLayer => ({
  ...nodeFs,
  rename: async (from, to) => {
    await nodeFs.rename(from, to);
    if (to.endsWith('.json')) renamed.push(to);
  },
});

describe('journal relog', () => {
  let dir = '';
  tempDirPerTest('dashcd-relog-', (created) => (dir = created));

  it('appends records again ahead of the writes pending in the same commit, leaving out what `next` skips', async () => {
    const durable: string[] = [];
    const journal = await WriteJournal.open(dir, nodeFs, 0, (records) => durable.push(...records.map((r) => r.id)));
    await journal.append(record('a', '1'));
    await journal.append(record('b', '1'));
    const latest = [record('a', '1'), record('b', '1')];
    let at = 0;
    const relogged = journal.relog(() => {
      for (;;) {
        const next = latest[at++];
        if (next?.id !== 'b') return next;
      }
    });
    const later = journal.append(record('a', '2'));
    await Promise.all([relogged, later]);
    expect(texts((await readJournal(dir)).records)).toEqual([['a', '1'], ['b', '1'], ['a', '1'], ['a', '2']]);
    // Records appended again are no new writes: whoever tracks durable writes sees only the real ones.
    expect(durable).toEqual(['a', 'b', 'a']);
    await journal.close(false);
  });

  it('goes on without any write, a chunk per commit, and resolves once every record is durable', async () => {
    const counts = { walWrites: 0 };
    const journal = await WriteJournal.open(dir, countingFs(counts), 0, () => undefined);
    const again = Array.from({ length: 40 }, (_, i) => record(`d${i}`, `${'x'.repeat(10_000)}${i}`));
    let at = 0;
    await journal.relog(() => again[at++]);
    expect(texts((await readJournal(dir)).records)).toEqual(texts(again));
    // 400 KB at 64 KB a commit, without waiting for writes that never come.
    expect(counts.walWrites).toBeGreaterThanOrEqual(6);
    expect(counts.walWrites).toBeLessThanOrEqual(8);
    await journal.close(false);
  });

  it('fails with the commit that carried it, and the journal takes writes again after', async () => {
    const control = { failWrites: true };
    const journal = await WriteJournal.open(dir, countingFs({ walWrites: 0 }, control), 0, () => undefined);
    let given = false;
    await expect(journal.relog(() => (given ? undefined : ((given = true), record('a', '1'))))).rejects.toMatchObject({ code: 'ENOSPC' });
    control.failWrites = false;
    await journal.append(record('b', '2'));
    let again = false;
    await journal.relog(() => (again ? undefined : ((again = true), record('a', '1'))));
    expect(texts((await readJournal(dir)).records)).toEqual([['b', '2'], ['a', '1']]);
    await journal.close(false);
  });
});

describe('journal compaction', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dashcd-compaction-'));
    await mkdir(join(dir, 'dashboards'));
  });
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const dashboards = (): string => join(dir, 'dashboards');
  const journalDir = (): string => join(dir, 'journal');
  const text = (id: string, n: number, size = 5_000): string => `${id}${'x'.repeat(size)}${n}\n`;
  const open = (fs: FsLayer, limits: CheckpointLimits): Promise<JournaledFiles> => JournaledFiles.open({ dir: dashboards(), journalDir: journalDir(), fs, log: silentLogger(), limits });

  it('under a burst to few ids, the checkpoint shrinks the journal to their latest records and writes no file until asked', async () => {
    const renamed: string[] = [];
    const fs = recordingFileWrites(renamed);
    const files = await open(fs, { journalBytes: 100_000, waitingBytes: 1_000_000, idleMs: NEVER, retryMs: NEVER });
    // 20 writes of ~5 KB to two ids: the checkpoint is reached with 10 KB of contents waiting.
    for (let n = 0; n < 20; n++) await files.write(record(n % 2 === 0 ? 'a' : 'b', text(n % 2 === 0 ? 'a' : 'b', n)));
    await waitFor(async () => (await folderBytes(journalDir())) < 30_000, { what: 'the journal to be compacted' });
    expect(renamed).toEqual([]);
    const { records } = await readJournal(journalDir());
    expect(new Map(texts(records))).toEqual(new Map([['a', text('a', 18)], ['b', text('b', 19)]]));
    await files.flushed();
    expect((await readdir(dashboards())).sort()).toEqual(['a.json', 'b.json']);
    expect(await readFile(join(dashboards(), 'a.json'), 'utf8')).toBe(text('a', 18));
    expect(await readFile(join(dashboards(), 'b.json'), 'utf8')).toBe(text('b', 19));
    await files.close();
  });

  it('a compaction the journal cannot take fails without losing a write, is logged, and the files still come', async () => {
    const control = { failWrites: false };
    const { lines, log } = captureLog();
    const files = await JournaledFiles.open({ dir: dashboards(), journalDir: journalDir(), fs: countingFs({ walWrites: 0 }, control), log, limits: { journalBytes: 100_000, waitingBytes: 1_000_000, idleMs: NEVER, retryMs: NEVER } });
    for (let n = 0; n < 20; n++) await files.write(record(n % 2 === 0 ? 'a' : 'b', text(n % 2 === 0 ? 'a' : 'b', n)));
    // The last write reached the checkpoint; the compaction it started has yet to append anything.
    control.failWrites = true;
    await waitFor(() => lines.some((line) => line['msg'] === 'compacting the journal failed; retrying'), { what: 'the compaction to fail' });
    control.failWrites = false;
    await files.flushed();
    expect(await readFile(join(dashboards(), 'a.json'), 'utf8')).toBe(text('a', 18));
    expect(await readFile(join(dashboards(), 'b.json'), 'utf8')).toBe(text('b', 19));
    await files.close();
  });

  it('writes the files instead when the contents waiting are much of the journal (writes to many ids)', async () => {
    const renamed: string[] = [];
    const fs = recordingFileWrites(renamed);
    const files = await open(fs, { journalBytes: 100_000, waitingBytes: 1_000_000, idleMs: NEVER, retryMs: NEVER });
    const ids = Array.from({ length: 20 }, (_, i) => `d${i}`);
    for (const id of ids) await files.write(record(id, text(id, 1)));
    await waitFor(() => renamed.length === ids.length, { what: 'every file written' });
    expect((await readdir(dashboards())).sort()).toEqual(ids.map((id) => `${id}.json`).sort());
    await files.close();
  });

  /** Written once, first: a relog carries them first, ahead of the rewritten ones. */
  const COLD = ['x', 'y', 'z'];
  /** Each rewritten by a writer of its own. */
  const HOT = ['a', 'b', 'c'];
  /**
   * Contents of 40 KB: a relog chunk is as large as the commit's new writes (three of them), so the six latest take
   * two commits to append again, and a writer's newer version of a hot id lands in the first, before its older one.
   */
  const BIG = 40_000;

  /**
   * The cold ids, then three writers rewriting the hot ones through checkpoints that compact the journal, then a
   * flush. Returns what each id was last acknowledged as and last sent as (versions), and whether it ran to the end.
   */
  async function burst(fs: FsLayer, arm: () => void, frozen: Promise<void>): Promise<{ acked: Map<string, number>; sent: Map<string, number>; finished: boolean }> {
    const files = await open(fs, { journalBytes: 4 * 6 * BIG, waitingBytes: 10_000_000, idleMs: NEVER, retryMs: NEVER });
    arm();
    const acked = new Map<string, number>();
    const sent = new Map<string, number>();
    const run = (async () => {
      for (const id of COLD) {
        sent.set(id, 1);
        await files.write(record(id, text(id, 1, BIG)));
        acked.set(id, 1);
      }
      await Promise.all(
        HOT.map(async (id) => {
          for (let n = 1; n <= 20; n++) {
            sent.set(id, n);
            await files.write(record(id, text(id, n, BIG)));
            acked.set(id, n);
          }
        }),
      );
      await files.flushed();
      await files.close();
    })();
    const finished = await Promise.race([run.then(() => true), frozen.then(() => false)]);
    return { acked, sent, finished };
  }

  it('a process killed at any instant of the burst, compactions included, replays every acknowledged write into its file', async () => {
    const whole = freezingFs(Number.POSITIVE_INFINITY);
    const complete = await burst(whole.fs, whole.arm, whole.frozen);
    expect(complete.finished).toBe(true);
    const total = whole.calls();
    // The burst did compact: journal generations were dropped before any dashboard file was written.
    const ops = whole.ops();
    const firstFile = ops.findIndex((op) => op.startsWith('rename') && op.endsWith('.json'));
    const firstDrop = ops.findIndex((op) => op.startsWith('rename') && op.endsWith('.wal.dropped'));
    expect(firstDrop).toBeGreaterThan(-1);
    expect(firstDrop).toBeLessThan(firstFile);
    expect(ops.filter((op) => op.startsWith('rename') && op.endsWith('.json')).sort()).toEqual([...HOT, ...COLD].sort().map((id) => `rename ${id}.json`));
    for (let at = 0; at < total; at++) {
      await rm(dir, { recursive: true, force: true });
      await mkdir(dashboards(), { recursive: true });
      const freezing = freezingFs(at);
      const { acked, sent } = await burst(freezing.fs, freezing.arm, freezing.frozen);
      await replayJournal({ dir: dashboards(), journalDir: journalDir(), fs: nodeFs, log: silentLogger() });
      for (const id of [...COLD, ...HOT]) {
        const file = await readFile(join(dashboards(), `${id}.json`), 'utf8').catch(() => undefined);
        const low = acked.get(id) ?? 0;
        if (file === undefined) {
          expect(low, `${id} after a kill at fs call ${at}`).toBe(0);
          continue;
        }
        // The last acknowledged version, or one sent after it whose commit had reached the disk: never an older one.
        const version = Number(/(\d+)\n$/.exec(file)?.[1]);
        expect(file, `${id} after a kill at fs call ${at}`).toBe(text(id, version, BIG));
        expect(version, `${id} after a kill at fs call ${at}`).toBeGreaterThanOrEqual(low);
        expect(version).toBeLessThanOrEqual(sent.get(id) ?? 0);
      }
      await freezing.release();
    }
  });
});
