import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../src/lib/durable-file.js';
import { nodeFs, type FileHandleLike, type FsLayer } from '../../src/lib/fs-layer.js';
import { readOwner } from '../../src/server/data-dir.js';
import { frameOf, parseGeneration, writeFrames } from '../../src/server/store/write-journal.js';
import { api, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

type FsEvent =
  | { op: 'open'; path: string; flags: string }
  /** `synchronous`: written through a descriptor opened O_SYNC, so durable when the write returned. */
  | { op: 'write'; path: string; text: string; synchronous: boolean }
  | { op: 'sync' | 'close' | 'unlink' | 'mkdir' | 'truncate'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'response'; label: string };

type Skip = 'file-sync' | 'dir-sync' | 'none';

/**
 * Records every call in order. `skip` makes a variant that silently leaves one step out, as a buggy store would:
 * 'file-sync' also writes what was meant for an O_SYNC descriptor through a plain one of the same file.
 */
function recordingFs(events: FsEvent[], skip: () => Skip): FsLayer {
  const wrap = (path: string, handle: FileHandleLike, isDir: boolean, flags: string): FileHandleLike => {
    let unsynced: Promise<FileHandleLike> | undefined;
    return {
      async write(data) {
        const synchronous = flags.includes('s') && skip() !== 'file-sync';
        // Journal batches are kept whole, to find the record a response depends on.
        events.push({ op: 'write', path, text: path.endsWith('.wal') ? String(data) : '', synchronous });
        if (synchronous || !flags.includes('s')) return handle.write(data);
        unsynced ??= nodeFs.open(path, 'a');
        return (await unsynced).write(data);
      },
      async sync() {
        if (skip() === (isDir ? 'dir-sync' : 'file-sync')) return;
        events.push({ op: 'sync', path });
        await handle.sync();
      },
      async close() {
        events.push({ op: 'close', path });
        await (await unsynced)?.close();
        await handle.close();
      },
    };
  };
  return {
    async open(path, flags, mode) {
      events.push({ op: 'open', path, flags });
      return wrap(path, await nodeFs.open(path, flags, mode), flags === 'r', flags);
    },
    async rename(from, to) {
      events.push({ op: 'rename', from, to });
      await nodeFs.rename(from, to);
    },
    async unlink(path) {
      events.push({ op: 'unlink', path });
      await nodeFs.unlink(path);
    },
    async mkdir(path) {
      events.push({ op: 'mkdir', path });
      return nodeFs.mkdir(path);
    },
    async truncate(path, length) {
      events.push({ op: 'truncate', path });
      await nodeFs.truncate(path, length);
    },
  };
}

/**
 * The durability contract of one acknowledged write of `file`: before the response, a temp file next to it was
 * opened exclusively, written and fsynced, then renamed over `file`, then the directory was fsynced.
 * Returns what is missing (empty = the contract holds).
 */
function durableWriteProblems(events: readonly FsEvent[], file: string, response: string): string[] {
  const end = events.findIndex((e) => e.op === 'response' && e.label === response);
  if (end === -1) return [`no response "${response}"`];
  const before = events.slice(0, end);
  const renameAt = before.findLastIndex((e) => e.op === 'rename' && e.to === file);
  if (renameAt === -1) return [`no rename onto ${file} before the response`];
  const temp = (before[renameAt] as { from: string }).from;
  const problems: string[] = [];
  if (dirname(temp) !== dirname(file) || !temp.includes(TEMP_MARKER)) problems.push(`renamed from ${temp}, not a temp file beside it`);
  const openAt = before.findIndex((e) => e.op === 'open' && e.path === temp);
  const writeAt = before.findIndex((e, i) => i > openAt && e.op === 'write' && e.path === temp);
  const syncAt = before.findIndex((e, i) => i > writeAt && e.op === 'sync' && e.path === temp);
  if (openAt === -1 || (before[openAt] as { flags: string }).flags !== 'wx') problems.push('temp file not created exclusively');
  if (writeAt === -1) problems.push('temp file never written');
  if (syncAt === -1 || syncAt > renameAt) problems.push('temp file not fsynced before the rename');
  problems.push(...dirSyncProblems(before, renameAt, dirname(file)));
  return problems;
}

/**
 * The durability contract of one acknowledged write in the journal: before the response, a journal batch holding
 * the write's record (for `id`, with the text containing `mark`, or a removal when `mark` is null) was written
 * synchronously or then fsynced, in a journal file whose directory entry had been fsynced.
 */
function journalProblems(events: readonly FsEvent[], journalDir: string, id: string, mark: string | null, response: string): string[] {
  const end = events.findIndex((e) => e.op === 'response' && e.label === response);
  if (end === -1) return [`no response "${response}"`];
  const before = events.slice(0, end);
  const holds = (batch: string): boolean =>
    parseGeneration(Buffer.from(batch)).records.some((r) => r.id === id && (mark === null ? r.contents === null : r.contents !== null && Buffer.from(r.contents).toString().includes(mark)));
  const writeAt = before.findLastIndex((e) => e.op === 'write' && dirname(e.path) === journalDir && holds(e.text));
  const write = before[writeAt];
  if (write?.op !== 'write') return [`no journal record for ${id} before the response`];
  const wal = write.path;
  const problems: string[] = [];
  const synced = write.synchronous || before.some((e, i) => i > writeAt && e.op === 'sync' && e.path === wal);
  if (!synced) problems.push('journal record neither written synchronously nor fsynced before the response');
  const openAt = before.findIndex((e) => e.op === 'open' && e.path === wal);
  problems.push(...dirSyncProblems(before, openAt, journalDir));
  return problems;
}

/** The durability contract of an acknowledged delete: unlink, then fsync of the directory, before the response. */
function durableDeleteProblems(events: readonly FsEvent[], file: string, response: string): string[] {
  const end = events.findIndex((e) => e.op === 'response' && e.label === response);
  const unlinkAt = events.findIndex((e, i) => i < end && e.op === 'unlink' && e.path === file);
  if (unlinkAt === -1) return [`no unlink of ${file} before the response`];
  return dirSyncProblems(events.slice(0, end), unlinkAt, dirname(file));
}

function dirSyncProblems(before: readonly FsEvent[], after: number, dir: string): string[] {
  const openDir = before.findIndex((e, i) => i > after && e.op === 'open' && e.path === dir);
  const syncDir = before.findIndex((e, i) => i > openDir && e.op === 'sync' && e.path === dir);
  return openDir === -1 || syncDir === -1 ? [`directory ${dir} not fsynced after the change, before the response`] : [];
}

describe('durable writes, proven with a recording fs layer', () => {
  let server: TestServer | undefined;
  afterEach(async () => server?.close());

  const ID = '44444444-aaaa-4bbb-8ccc-000000000001';

  /** Every write kind, each followed by a response marker, then a clean close (which materialises the files). */
  async function exercise(skip: Skip) {
    const events: FsEvent[] = [];
    let mode: Skip = 'none';
    server = await startTestServer({ fs: recordingFs(events, () => mode) });
    mode = skip;
    const { token, url } = server;
    const dashboards = `${url}/api/config/v1/dashboards`;
    const post = await api(dashboards, { method: 'POST', token, body: minimalDashboard('posted') });
    events.push({ op: 'response', label: 'POST' });
    expect(await api(`${dashboards}/${ID}`, { method: 'PUT', token, body: minimalDashboard('v1') })).toMatchObject({ status: 201 });
    events.push({ op: 'response', label: 'PUT create' });
    expect(await api(`${dashboards}/${ID}`, { method: 'PUT', token, body: minimalDashboard('v2') })).toMatchObject({ status: 204 });
    events.push({ op: 'response', label: 'PUT replace' });
    expect(await api(`${dashboards}/${ID}`, { method: 'DELETE', token })).toMatchObject({ status: 204 });
    events.push({ op: 'response', label: 'DELETE' });
    const adminKey = (await readOwner(server.dataDir))!.adminKey;
    const tokenCreate = await api(`${server.baseUrl}/_dashcd/admin/env/local/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}` },
      body: { name: 'recorded', scopes: ['ReadConfig'] },
    });
    expect(tokenCreate.status).toBe(201);
    events.push({ op: 'response', label: 'token create' });
    await server.close();
    events.push({ op: 'response', label: 'closed' });
    const envDir = join(server.dataDir, 'env', 'local');
    const dir = join(envDir, 'dashboards');
    const postedId = (post.json as { id: string }).id;
    return { events, dir, journalDir: join(envDir, 'dashboards-journal'), postedId, created: join(dir, `${postedId}.json`), tokensFile: join(envDir, 'tokens.json') };
  }

  it('every dashboard write is in an fsynced journal before its response, and in its own file (temp → fsync → rename → fsync(dir)) by a clean close', async () => {
    const { events, dir, journalDir, postedId, created, tokensFile } = await exercise('none');
    expect(journalProblems(events, journalDir, postedId, '"name":"posted"', 'POST')).toEqual([]);
    expect(journalProblems(events, journalDir, ID, '"name":"v1"', 'PUT create')).toEqual([]);
    expect(journalProblems(events, journalDir, ID, '"name":"v2"', 'PUT replace')).toEqual([]);
    expect(journalProblems(events, journalDir, ID, null, 'DELETE')).toEqual([]);
    expect(durableWriteProblems(events, created, 'closed')).toEqual([]);
    // Writes to one id may be coalesced into the last one (here the delete): whatever was written, it ends unlinked.
    const file = join(dir, `${ID}.json`);
    expect(durableDeleteProblems(events, file, 'closed')).toEqual([]);
    const lastRename = events.findLastIndex((e) => e.op === 'rename' && e.to === file);
    expect(events.findLastIndex((e) => e.op === 'unlink' && e.path === file)).toBeGreaterThan(lastRename);
    expect(durableWriteProblems(events, tokensFile, 'token create')).toEqual([]);
  });

  it('parallel PUTs to different ids share journal commits (group commit), each record durable before its response', async () => {
    const events: FsEvent[] = [];
    server = await startTestServer({ fs: recordingFs(events, () => 'none') });
    const { token, url } = server;
    const journalWrites = (): number => events.filter((e) => e.op === 'write' && e.path.endsWith('.wal')).length;
    // Whether a burst's PUTs reach the server while a commit is under way depends on the scheduler: on a busy machine
    // one burst can arrive spread out, one commit each. Bursts go on until one shares a commit; an implementation
    // that never batches fails all of them.
    const ids: string[] = [];
    let shared = false;
    for (let burst = 0; burst < 20 && !shared; burst++) {
      const burstIds = Array.from({ length: 16 }, (_, i) => `55555555-aaaa-4bbb-8ccc-${String(burst * 100 + i).padStart(12, '0')}`);
      const before = journalWrites();
      await Promise.all(
        burstIds.map(async (id) => {
          const res = await api(`${url}/api/config/v1/dashboards/${id}`, { method: 'PUT', token, body: minimalDashboard(id) });
          expect(res.status).toBe(201);
          events.push({ op: 'response', label: id });
        }),
      );
      ids.push(...burstIds);
      shared = journalWrites() - before < burstIds.length;
    }
    expect(shared, 'no burst of 16 parallel PUTs shared a journal commit').toBe(true);
    await server.close();
    events.push({ op: 'response', label: 'closed' });
    const envDir = join(server.dataDir, 'env', 'local');
    for (const id of ids) {
      expect(journalProblems(events, join(envDir, 'dashboards-journal'), id, `"name":"${id}"`, id)).toEqual([]);
      expect(durableWriteProblems(events, join(envDir, 'dashboards', `${id}.json`), 'closed')).toEqual([]);
    }
  });

  it('the check fails for a variant that skips the fsync of files', async () => {
    const { events, journalDir, postedId, created } = await exercise('file-sync');
    expect(journalProblems(events, journalDir, postedId, '"name":"posted"', 'POST')).toEqual(['journal record neither written synchronously nor fsynced before the response']);
    expect(durableWriteProblems(events, created, 'closed')).toEqual(['temp file not fsynced before the rename']);
  });

  it('the check fails for a variant that skips the fsync of the directory', async () => {
    // (The journal file in use was created, and its entry fsynced, before the variant started skipping.)
    const { events, dir, created, tokensFile } = await exercise('dir-sync');
    expect(durableWriteProblems(events, created, 'closed')).toEqual([`directory ${dir} not fsynced after the change, before the response`]);
    expect(durableWriteProblems(events, tokensFile, 'token create')).not.toEqual([]);
  });

  it('the check fails when the response comes before the directory fsync, or the file is written in place', () => {
    const file = '/d/x.json';
    const temp = `/d/x.json${TEMP_MARKER}1`;
    const good: FsEvent[] = [
      { op: 'open', path: temp, flags: 'wx' },
      { op: 'write', path: temp, text: '', synchronous: false },
      { op: 'sync', path: temp },
      { op: 'close', path: temp },
      { op: 'rename', from: temp, to: file },
      { op: 'open', path: '/d', flags: 'r' },
      { op: 'sync', path: '/d' },
      { op: 'response', label: 'r' },
    ];
    expect(durableWriteProblems(good, file, 'r')).toEqual([]);
    const early = [...good.slice(0, 5), { op: 'response', label: 'r' } as FsEvent, ...good.slice(5, 7)];
    expect(durableWriteProblems(early, file, 'r')).toEqual(['directory /d not fsynced after the change, before the response']);
    const inPlace: FsEvent[] = [{ op: 'open', path: file, flags: 'w' }, { op: 'write', path: file, text: '', synchronous: false }, { op: 'response', label: 'r' }];
    expect(durableWriteProblems(inPlace, file, 'r')).toEqual([`no rename onto ${file} before the response`]);
  });

  it('the journal check fails for a record fsynced only after the response', () => {
    const wal = '/j/0000000001.wal';
    const frame = frameOf({ id: 'x', contents: Buffer.from('{"name":"v1"}') });
    const batch = Buffer.alloc(frame.bytes);
    writeFrames(batch, [frame]);
    const events: FsEvent[] = [
      { op: 'open', path: wal, flags: 'a' },
      { op: 'open', path: '/j', flags: 'r' },
      { op: 'sync', path: '/j' },
      { op: 'write', path: wal, text: batch.toString(), synchronous: false },
      { op: 'response', label: 'r' },
      { op: 'sync', path: wal },
    ];
    expect(journalProblems(events, '/j', 'x', '"name":"v1"', 'r')).toEqual(['journal record neither written synchronously nor fsynced before the response']);
    // The same record written through an O_SYNC descriptor was durable when its write returned.
    const synchronous = events.map((e) => (e.op === 'write' ? { ...e, synchronous: true } : e));
    expect(journalProblems(synchronous, '/j', 'x', '"name":"v1"', 'r')).toEqual([]);
    expect(journalProblems(events, '/j', 'x', '"name":"v2"', 'r')).toEqual(['no journal record for x before the response']);
  });
});
