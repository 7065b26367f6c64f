import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../src/lib/durable-file.js';
import { nodeFs, type FileHandleLike, type FsLayer } from '../../src/lib/fs-layer.js';
import { readOwner } from '../../src/server/data-dir.js';
import { api, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

type FsEvent =
  | { op: 'open'; path: string; flags: string }
  | { op: 'write' | 'sync' | 'close' | 'unlink' | 'mkdir'; path: string }
  | { op: 'rename'; from: string; to: string }
  | { op: 'response'; label: string };

type Skip = 'file-sync' | 'dir-sync' | 'none';

/** Records every call in order. `skip` makes a variant that silently leaves one step out, as a buggy store would. */
function recordingFs(events: FsEvent[], skip: () => Skip): FsLayer {
  const wrap = (path: string, handle: FileHandleLike, isDir: boolean): FileHandleLike => ({
    async write(data) {
      events.push({ op: 'write', path });
      return handle.write(data);
    },
    async sync() {
      if (skip() === (isDir ? 'dir-sync' : 'file-sync')) return;
      events.push({ op: 'sync', path });
      await handle.sync();
    },
    async close() {
      events.push({ op: 'close', path });
      await handle.close();
    },
  });
  return {
    async open(path, flags, mode) {
      events.push({ op: 'open', path, flags });
      return wrap(path, await nodeFs.open(path, flags, mode), flags === 'r');
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
      await nodeFs.mkdir(path);
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

  async function exercise(skip: Skip): Promise<{ events: FsEvent[]; dir: string; created: string; tokensFile: string }> {
    const events: FsEvent[] = [];
    let mode: Skip = 'none';
    server = await startTestServer({ fs: recordingFs(events, () => mode) });
    mode = skip;
    const { token, url } = server;
    const id = '44444444-aaaa-4bbb-8ccc-000000000001';
    const dashboards = `${url}/api/config/v1/dashboards`;
    const post = await api(dashboards, { method: 'POST', token, body: minimalDashboard('posted') });
    events.push({ op: 'response', label: 'POST' });
    expect(await api(`${dashboards}/${id}`, { method: 'PUT', token, body: minimalDashboard('v1') })).toMatchObject({ status: 201 });
    events.push({ op: 'response', label: 'PUT create' });
    expect(await api(`${dashboards}/${id}`, { method: 'PUT', token, body: minimalDashboard('v2') })).toMatchObject({ status: 204 });
    events.push({ op: 'response', label: 'PUT replace' });
    expect(await api(`${dashboards}/${id}`, { method: 'DELETE', token })).toMatchObject({ status: 204 });
    events.push({ op: 'response', label: 'DELETE' });
    const adminKey = (await readOwner(server.dataDir))!.adminKey;
    const tokenCreate = await api(`${server.baseUrl}/_dashcd/admin/env/local/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminKey}` },
      body: { name: 'recorded', scopes: ['ReadConfig'] },
    });
    expect(tokenCreate.status).toBe(201);
    events.push({ op: 'response', label: 'token create' });
    const dir = join(server.dataDir, 'env', 'local', 'dashboards');
    return { events, dir, created: join(dir, `${(post.json as { id: string }).id}.json`), tokensFile: join(server.dataDir, 'env', 'local', 'tokens.json') };
  }

  it('every write path is temp write → fsync → rename → fsync(dir) before its response', async () => {
    const { events, dir, created, tokensFile } = await exercise('none');
    const file = join(dir, '44444444-aaaa-4bbb-8ccc-000000000001.json');
    expect(durableWriteProblems(events, created, 'POST')).toEqual([]);
    expect(durableWriteProblems(events, file, 'PUT create')).toEqual([]);
    expect(durableWriteProblems(events, file, 'PUT replace')).toEqual([]);
    expect(durableDeleteProblems(events, file, 'DELETE')).toEqual([]);
    expect(durableWriteProblems(events, tokensFile, 'token create')).toEqual([]);
  });

  it('parallel PUTs to different ids (sharing directory fsyncs) each meet the contract before their response', async () => {
    const events: FsEvent[] = [];
    server = await startTestServer({ fs: recordingFs(events, () => 'none') });
    const { token, url } = server;
    const ids = Array.from({ length: 16 }, (_, i) => `55555555-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
    await Promise.all(
      ids.map(async (id) => {
        const res = await api(`${url}/api/config/v1/dashboards/${id}`, { method: 'PUT', token, body: minimalDashboard(id) });
        expect(res.status).toBe(201);
        events.push({ op: 'response', label: id });
      }),
    );
    const dir = join(server.dataDir, 'env', 'local', 'dashboards');
    for (const id of ids) expect(durableWriteProblems(events, join(dir, `${id}.json`), id)).toEqual([]);
    const dirSyncs = events.filter((e) => e.op === 'sync' && e.path === dir).length;
    expect(dirSyncs).toBeLessThanOrEqual(ids.length);
  });

  it('the check fails for a variant that skips the fsync of the temp file', async () => {
    const { events, created } = await exercise('file-sync');
    expect(durableWriteProblems(events, created, 'POST')).toEqual(['temp file not fsynced before the rename']);
  });

  it('the check fails for a variant that skips the fsync of the directory', async () => {
    const { events, dir, created } = await exercise('dir-sync');
    expect(durableWriteProblems(events, created, 'POST')).toEqual([`directory ${dir} not fsynced after the change, before the response`]);
    expect(durableDeleteProblems(events, join(dir, '44444444-aaaa-4bbb-8ccc-000000000001.json'), 'DELETE')).not.toEqual([]);
  });

  it('the check fails when the response comes before the directory fsync, or the file is written in place', () => {
    const file = '/d/x.json';
    const temp = `/d/x.json${TEMP_MARKER}1`;
    const good: FsEvent[] = [
      { op: 'open', path: temp, flags: 'wx' },
      { op: 'write', path: temp },
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
    const inPlace: FsEvent[] = [{ op: 'open', path: file, flags: 'w' }, { op: 'write', path: file }, { op: 'response', label: 'r' }];
    expect(durableWriteProblems(inPlace, file, 'r')).toEqual([`no rename onto ${file} before the response`]);
  });
});
