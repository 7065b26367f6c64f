import { appendFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs, type FsLayer } from '../../../../src/lib/fs-layer.js';
import { silentLogger } from '../../../../src/lib/logger.js';
import { DashboardId } from '../../../../src/schema/ids.js';
import { openDashboardStore } from '../../../../src/server/store/dashboard-store.js';
import { prepareDashboard } from '../../../../src/server/store/dashboard-document.js';
import { JournaledFiles, replayJournal, type CheckpointLimits } from '../../../../src/server/store/journaled-files.js';
import { dropGenerations, parseGeneration, readJournal, WriteJournal, type JournalRecord } from '../../../../src/server/store/write-journal.js';
import { budgetFs } from '../../../helpers/budget-fs.js';
import { countingFs, record } from '../../../helpers/journal-fs.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';

const ID = DashboardId.parse('11111111-2222-4333-8444-555555555555');
const body = (name: string) => ({ dashboardMetadata: { name, owner: 'me' }, tiles: [] });

describe('write-ahead journal', () => {
  let dir = '';
  tempDirPerTest('dashcd-journal-', (created) => (dir = created));

  it('acknowledges a burst of appends with fewer synchronous writes than records, each record durable and in order', async () => {
    const counts = { walWrites: 0, walFlags: [] as string[] };
    const seen: JournalRecord[] = [];
    const journal = await WriteJournal.open(dir, countingFs(counts), 0, (records) => seen.push(...records));
    const records = Array.from({ length: 40 }, (_, i) => record(`d${i % 5}`, `{"n":${i}}\n`));
    await Promise.all(records.map((r) => journal.append(r)));
    expect(counts.walWrites).toBeLessThan(records.length);
    // Only a file opened synchronously (O_SYNC) makes a write durable when it returns.
    expect(counts.walFlags).toEqual(['as']);
    expect(seen).toEqual(records);
    expect((await readJournal(dir)).records).toEqual(records);
    await journal.close(false);
  });

  it('writes batches of any size byte for byte: multi-byte text, small batches after a large one, one over 1 MB', async () => {
    const journal = await WriteJournal.open(dir, nodeFs, 0, () => undefined);
    const text = (n: number, fill: string) => JSON.stringify({ n, s: fill.repeat(n) });
    const first = [record('big', text(300_000, 'é€'))];
    const second = Array.from({ length: 5 }, (_, i) => record(`s${i}`, text(10 + i, '𝄞')));
    const third = Array.from({ length: 3 }, (_, i) => record(`h${i}`, text(200_000, 'ab')));
    for (const batch of [first, second, third, [record('gone', null)]]) await Promise.all(batch.map((r) => journal.append(r)));
    expect((await readJournal(dir)).records).toEqual([...first, ...second, ...third, record('gone', null)]);
    await journal.close(false);
  });

  it('drops a torn or corrupted tail and keeps every whole record before it', async () => {
    const journal = await WriteJournal.open(dir, nodeFs, 0, () => undefined);
    await journal.append(record('a', 'x\ny'));
    await journal.append(record('b', null));
    await journal.close(false);
    const [file] = await readdir(dir);
    const whole = await readFile(join(dir, file!));
    const both = [record('a', 'x\ny'), record('b', null)];
    expect(parseGeneration(whole)).toEqual({ records: both, torn: false });
    // A batch cut short: its header made it, part of its text did not.
    expect(parseGeneration(Buffer.concat([whole, Buffer.from('0badc0de 40 c\n{"partial')]))).toEqual({ records: both, torn: true });
    // A record whose bytes are not the ones checksummed (here the id of the removal).
    expect(parseGeneration(Buffer.from(whole.toString().replace(' - b', ' - c')))).toEqual({ records: [record('a', 'x\ny')], torn: true });
    // A text whose length does not match its header.
    expect(parseGeneration(Buffer.from(whole.toString().replace('x\ny', 'x\nyz')))).toEqual({ records: [], torn: true });
  });

  it('rotate hands over exactly what was durable at the switch, and later appends go to the new generation', async () => {
    const durable: string[] = [];
    const journal = await WriteJournal.open(dir, nodeFs, 0, (records) => durable.push(...records.map((r) => r.id)));
    await journal.append(record('a', '1'));
    const [rotated] = await Promise.all([journal.rotate(() => durable.splice(0)), journal.append(record('b', '2'))]);
    await journal.append(record('c', '3'));
    expect(rotated.taken.every((id) => ['a', 'b'].includes(id))).toBe(true);
    await journal.retire(rotated.retired, rotated.retiredBytes);
    const left = (await readJournal(dir)).records.map((r) => r.id);
    // Every record is either handed over or still journalled: nothing durable falls between the two.
    expect([...rotated.taken, ...left].sort()).toEqual(['a', 'b', 'c']);
    await journal.close(false);
  });

  it('drops a large generation a step at a time from its end, each step made durable, then unlinks it', async () => {
    const journal = await WriteJournal.open(dir, nodeFs, 0, () => undefined);
    await journal.append(record('big', 'x'.repeat(20 * 1024 * 1024)));
    await journal.close(false);
    const { generations } = await readJournal(dir);
    const file = join(dir, `${String(generations[0]).padStart(10, '0')}.wal`);
    const size = (await stat(file)).size;
    const steps: string[] = [];
    const fs: FsLayer = {
      ...nodeFs,
      truncate: async (path, length) => (steps.push(`truncate ${basename(path)} ${length}`), nodeFs.truncate(path, length)),
      unlink: async (path) => (steps.push(`unlink ${basename(path)}`), nodeFs.unlink(path)),
      async open(path, flags, mode) {
        const handle = await nodeFs.open(path, flags, mode);
        return { ...handle, sync: async () => (steps.push(`sync ${basename(path)}`), handle.sync()) };
      },
    };
    await dropGenerations(dir, generations, fs);
    // Renamed out of replay's sight (made durable by the directory's sync) before it is cut.
    const name = `${basename(file)}.dropped`;
    const MB8 = 8 * 1024 * 1024;
    expect(steps).toEqual([`sync ${basename(dir)}`, `truncate ${name} ${size - MB8}`, `sync ${name}`, `truncate ${name} ${size - 2 * MB8}`, `sync ${name}`, `unlink ${name}`, `sync ${basename(dir)}`]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('a crash while a generation is being cut down never brings its older records back: the next start finishes the drop', async () => {
    const journalDir = join(dir, 'journal');
    const dashboards = join(dir, 'dashboards');
    await mkdir(dashboards);
    const journal = await WriteJournal.open(journalDir, nodeFs, 0, () => undefined);
    // Two versions of one dashboard, 9 MB each: the first 8 MB step cuts into the newer one.
    const version = (n: number): string => `${n}${'x'.repeat(9 * 1024 * 1024)}`;
    await journal.append(record('a', version(1)));
    await journal.append(record('a', version(2)));
    await journal.close(false);
    // Its latest is in its file, as the materialiser leaves it before the drop.
    await writeFile(join(dashboards, 'a.json'), version(2));
    const { generations } = await readJournal(journalDir);
    // Killed after the first step: the cut reached the disk, nothing after it ran.
    const crashing: FsLayer = { ...nodeFs, truncate: async (path, length) => (await nodeFs.truncate(path, length), Promise.reject(new Error('killed'))) };
    await expect(dropGenerations(journalDir, generations, crashing)).rejects.toThrow('killed');
    await replayJournal({ dir: dashboards, journalDir, fs: nodeFs, log: silentLogger() });
    expect((await readFile(join(dashboards, 'a.json'), 'utf8')).slice(0, 1)).toBe('2');
    expect(await readdir(journalDir)).toEqual([]);
  });

  it('a failed journal write fails the writes of that batch and the next batch goes to a fresh generation', async () => {
    const control = { failWrites: true };
    const journal = await WriteJournal.open(dir, countingFs({ walWrites: 0 }, control), 0, () => undefined);
    await expect(journal.append(record('a', '1'))).rejects.toMatchObject({ code: 'ENOSPC' });
    control.failWrites = false;
    await journal.append(record('b', '2'));
    const { records, generations } = await readJournal(dir);
    expect(records).toEqual([record('b', '2')]);
    expect(generations.length).toBe(2);
    await journal.close(false);
  });
});

describe('a batch the disk took only part of', () => {
  let dir = '';
  tempDirPerTest('dashcd-journal-torn-', (created) => (dir = created));

  it('leaves none of its records to replay, though some reached the file whole: every write of it was refused', async () => {
    // A full disk took the first of two records whole and part of the second: replay applied the first, so a PUT
    // answered 503 came back after a restart (outside review, a tmpfs of 3 MB).
    const { fs, setBudget } = budgetFs();
    const journal = await WriteJournal.open(dir, fs, 0, () => undefined);
    await journal.append(record('kept', 'acknowledged'));
    const liveKept = journal.liveBytes;
    const refused = [record('b', 'x'.repeat(500)), record('c', 'y'.repeat(500))];
    setBudget(600);
    const answers = await Promise.allSettled(refused.map((r) => journal.append(r)));
    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    // Only records in the file count toward the journal's bound: refused ones kept writers waiting for a compaction.
    expect(journal.liveBytes).toBe(liveKept);
    setBudget(Number.POSITIVE_INFINITY);
    await journal.append(record('after', 'acknowledged too'));
    await journal.close(false);
    const { records, torn } = await readJournal(dir);
    expect(records).toEqual([record('kept', 'acknowledged'), record('after', 'acknowledged too')]);
    expect(torn).toBe(false);
  });
});

describe('dashboard store over the journal', () => {
  let dir = '';
  tempDirPerTest('dashcd-journal-store-', (created) => (dir = created));

  const storeDir = (): string => join(dir, 'dashboards');
  const journalDir = (): string => join(dir, 'dashboards-journal');

  it('replays records a crash left in the journal into files at start, last write per id wins, torn tail ignored', async () => {
    const other = DashboardId.parse('11111111-2222-4333-8444-000000000002');
    // Records as a killed server leaves them: written and fsynced, never materialised; then half a batch.
    const journal = await WriteJournal.open(journalDir(), nodeFs, 0, () => undefined);
    const text = (name: string, version: number) => `${JSON.stringify({ metadata: { configurationVersions: [version] }, id: ID, ...body(name) })}\n`;
    await journal.append(record(ID, text('v1', 1)));
    await journal.append(record(ID, text('v2', 2)));
    await journal.append(record(other, text('gone', 1)));
    await journal.append(record(other, null));
    await journal.close(false);
    const [file] = await readdir(journalDir());
    await appendFile(join(journalDir(), file!), `12345678 300 ${ID}\n{"tor`);
    await mkdir(storeDir(), { recursive: true });
    await writeFile(join(storeDir(), `${other}.json`), text('stale', 1));

    const store = await openDashboardStore({ dir: storeDir(), log: silentLogger() });
    expect(store.get(ID)?.name).toBe('v2');
    expect(store.get(ID)?.version).toBe(2);
    expect(store.get(other)).toBeUndefined();
    expect(JSON.parse(await readFile(join(storeDir(), `${ID}.json`), 'utf8'))).toMatchObject({ dashboardMetadata: { name: 'v2' } });
    expect(await readdir(storeDir())).toEqual([`${ID}.json`]);
    expect((await readJournal(journalDir())).records).toEqual([]);
    await store.close();
  });

  it('a clean close leaves every write in its file and nothing to replay', async () => {
    const store = await openDashboardStore({ dir: storeDir(), log: silentLogger() });
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.put(ID, prepareDashboard(body(`v${i}`)))));
    await store.close();
    expect(await readdir(journalDir())).toEqual([]);
    expect(JSON.parse(await readFile(join(storeDir(), `${ID}.json`), 'utf8'))).toMatchObject({ metadata: { configurationVersions: [30] } });
  });

  it('a write the journal could not take fails with the fs error and leaves the stored version as it was', async () => {
    const control = { failWrites: false };
    const store = await openDashboardStore({ dir: storeDir(), log: silentLogger(), fs: countingFs({ walWrites: 0 }, control) });
    await store.put(ID, prepareDashboard(body('kept')));
    control.failWrites = true;
    await expect(store.put(ID, prepareDashboard(body('lost')))).rejects.toMatchObject({ code: 'ENOSPC' });
    expect(store.get(ID)?.name).toBe('kept');
    control.failWrites = false;
    await store.close();
    const reopened = await openDashboardStore({ dir: storeDir(), log: silentLogger() });
    expect(reopened.get(ID)?.name).toBe('kept');
    await reopened.close();
  });
});

describe('materialiser checkpoints', () => {
  let dir = '';
  tempDirPerTest('dashcd-journal-checkpoint-', (created) => (dir = created));

  // No pause in the writes ever starts a pass here: only a checkpoint can.
  const limits: CheckpointLimits = { journalBytes: 100_000, waitingBytes: 30_000, idleMs: 3_600_000, retryMs: 3_600_000 };
  const text = (n: number): string => `${'x'.repeat(10_000)}${n}\n`;

  /** Journaled files whose fs reports each dashboard file it renames into place, or fails the rename when told. */
  async function openFiles(control = { failRenames: false }): Promise<{ files: JournaledFiles; renamed: string[]; firstRename: Promise<void> }> {
    const renamed: string[] = [];
    let renamedOne = (): void => undefined;
    const firstRename = new Promise<void>((resolve) => (renamedOne = resolve));
    const fs: FsLayer = {
      ...nodeFs,
      async rename(from, to) {
        if (control.failRenames) throw Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
        await nodeFs.rename(from, to);
        // Dashboard files only: a dropped journal generation is renamed too.
        if (!to.endsWith('.json')) return;
        renamed.push(to);
        renamedOne();
      },
    };
    const dashboards = join(dir, 'dashboards');
    await mkdir(dashboards);
    const files = await JournaledFiles.open({ dir: dashboards, journalDir: join(dir, 'journal'), fs, log: silentLogger(), limits });
    return { files, renamed, firstRename };
  }

  it('writes them once the texts waiting for their files reach the memory bound, long before the journal does', async () => {
    const { files, renamed, firstRename } = await openFiles();
    await files.write(record('a', text(1)));
    await files.write(record('b', text(2)));
    expect(files.waitingBytes).toBe(text(1).length + text(2).length);
    expect(renamed).toEqual([]);
    await files.write(record('c', text(3)));
    await firstRename;
    await files.flushed();
    expect(renamed.sort()).toEqual(['a', 'b', 'c'].map((id) => join(dir, 'dashboards', `${id}.json`)));
    await files.close();
  });

  it('after a failed pass, a checkpoint reached again waits for the retry pause instead of starting another pass', async () => {
    const control = { failRenames: true };
    const { files } = await openFiles(control);
    for (const id of ['a', 'b', 'c']) await files.write(record(id, text(1)));
    // The third write reached the memory bound; that pass fails, and its contents wait in memory again.
    await expect(files.flushed()).rejects.toThrow(/could not be written/);
    control.failRenames = false;
    // Each write's commit runs after any pass it started has taken the waiting contents: none may have started.
    await files.write(record('d', text(1)));
    await files.write(record('e', text(1)));
    expect(files.waitingBytes).toBe(5 * text(1).length);
    await files.close();
  });
});
