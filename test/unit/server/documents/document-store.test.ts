import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFs, type FsLayer } from '../../../../src/lib/fs-layer.js';
import { silentLogger } from '../../../../src/lib/logger.js';
import { DocumentService, type Caller, type NewContent } from '../../../../src/server/documents/document-service.js';
import { openDocumentStore, type DocumentStore } from '../../../../src/server/documents/document-store.js';
import { HttpError } from '../../../../src/server/http/http-error.js';
import { openHandlesFs } from '../../../helpers/open-handles-fs.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';

const ALICE: Caller = { subject: 'alice' };
const BOB: Caller = { subject: 'bob' };
const ALL = new URLSearchParams({ 'page-size': '1000' });

describe('document store and service', () => {
  let dir = '';
  tempDirPerTest('dashcd-docstore-', (created) => (dir = created));
  let now = Date.parse('2026-01-01T00:00:00Z');
  const clock = { now: () => now };

  async function open(): Promise<{ store: DocumentStore; service: DocumentService }> {
    const store = await openDocumentStore({ dir, log: silentLogger() });
    let n = 0;
    return { store, service: new DocumentService(store, clock, () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`) };
  }

  async function content(service: DocumentService, bytes: string | Buffer, contentType = 'application/json'): Promise<NewContent> {
    const upload = service.upload();
    await upload.write(Buffer.from(bytes));
    return { upload, contentType };
  }

  async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<number> {
    try {
      await (typeof promise === 'function' ? promise() : promise);
    } catch (error) {
      if (error instanceof HttpError) return error.status;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('removes the temp files writes killed mid-way left among the records (they survived every restart)', async () => {
    const { store, service } = await open();
    await service.create({ name: 'Kept', type: 'dashboard', id: 'kept', content: await content(service, '{}') }, ALICE);
    await store.close();
    await writeFile(join(dir, 'records', 'kept.json.tmp-0a1b2c'), '{"half');
    await writeFile(join(dir, 'records', 'other.json.tmp-3d4e5f'), '');
    const reopened = await open();
    expect((await readdir(join(dir, 'records'))).filter((name) => name.includes('.tmp-'))).toEqual([]);
    expect(reopened.store.get('kept')?.name).toBe('Kept');
    await reopened.store.close();
  });

  it('closes its journal when opening fails after it (a content folder that is a file): no descriptor is left open', async () => {
    await writeFile(join(dir, 'content'), 'not a folder');
    const handles = openHandlesFs();
    await expect(openDocumentStore({ dir, log: silentLogger(), fs: handles.fs })).rejects.toThrow();
    // The journal was opened through the layer, so the check is not vacuous.
    expect(handles.opened()).toBeGreaterThan(0);
    expect(handles.unclosed()).toEqual([]);
  });

  it('creates version 1 owned by the caller, private by default, with content bytes and type as uploaded', async () => {
    const { store, service } = await open();
    const bytes = Buffer.from([0x7b, 0x7d, 0x0a, 0xff, 0x00]);
    const created = await service.create({ name: 'Ops', type: 'dashboard', content: await content(service, bytes, 'application/octet-stream') }, ALICE);
    expect(created).toMatchObject({ id: '00000000-0000-4000-8000-000000000001', version: 1, owner: 'alice', isPrivate: true, content: { contentType: 'application/octet-stream', size: 5 } });
    expect(created.modificationInfo).toEqual({ createdBy: 'alice', createdTime: '2026-01-01T00:00:00.000Z', lastModifiedBy: 'alice', lastModifiedTime: '2026-01-01T00:00:00.000Z' });
    const { body } = await service.content(created.id, ALICE);
    expect(body).toEqual(bytes);
    expect(await readFile(join(dir, 'content', created.content.file))).toEqual(bytes);
    expect(service.metadata(created, ALICE).access).toEqual(['read', 'write', 'delete']);
    await store.close();
  });

  it('a write names the version it read: a mismatch is 409 and changes nothing; a success bumps the version by one', async () => {
    const { store, service } = await open();
    const doc = await service.create({ id: 'my-dash', name: 'A', type: 'dashboard', content: await content(service, '{"v":1}') }, ALICE);
    const before = await readdir(join(dir, 'content'));
    expect(await refusal(service.update('my-dash', 2, { name: 'B', content: await content(service, '{"v":2}') }, ALICE))).toBe(409);
    expect(service.get('my-dash', ALICE)).toEqual(doc);
    expect(await readdir(join(dir, 'content'))).toEqual(before);
    now += 1000;
    const updated = await service.update('my-dash', 1, { name: 'B', content: await content(service, '{"v":2}', 'application/json; charset=utf-8') }, ALICE);
    expect(updated).toMatchObject({ version: 2, name: 'B', content: { contentType: 'application/json; charset=utf-8', size: 7 } });
    expect(updated.modificationInfo.lastModifiedTime).toBe('2026-01-01T00:00:01.000Z');
    expect((await service.update('my-dash', 2, { isPrivate: false }, ALICE)).version).toBe(3);
    // The replaced content's file is gone; only the current one remains.
    expect(await readdir(join(dir, 'content'))).toEqual([updated.content.file]);
    await store.close();
  });

  it('a custom id is taken while its document exists and while it is in the trash; a generated one is a fresh UUID', async () => {
    const { store, service } = await open();
    await service.create({ id: 'taken', name: 'A', type: 'x', content: await content(service, 'a') }, ALICE);
    expect(await refusal(service.create({ id: 'taken', name: 'B', type: 'x', content: await content(service, 'b') }, BOB))).toBe(409);
    await service.trash('taken', 1, ALICE);
    expect(await refusal(service.create({ id: 'taken', name: 'B', type: 'x', content: await content(service, 'b') }, ALICE))).toBe(409);
    expect(await readdir(join(dir, 'content'))).toHaveLength(1);
    await store.close();
  });

  it('trash: 404 at the document, listed in the owner\'s trash only, restored as it was, or purged for good', async () => {
    const { store, service } = await open();
    await service.create({ id: 'doomed', name: 'D', type: 'x', content: await content(service, 'd') }, ALICE);
    expect(await refusal(service.trash('doomed', 1, BOB))).toBe(403);
    await service.trash('doomed', 1, ALICE);
    expect(await refusal(() => service.get('doomed', ALICE))).toBe(404);
    expect(await refusal(service.update('doomed', 1, { name: 'x' }, ALICE))).toBe(404);
    expect(service.list(ALICE, ALL).items).toEqual([]);
    expect(service.trashList(ALICE, ALL).items.map((d) => [d.id, d.trashed])).toEqual([['doomed', { deletedBy: 'alice', deletedTime: new Date(now).toISOString() }]]);
    expect(service.trashList(BOB, ALL).items).toEqual([]);
    expect(await refusal(service.restore('doomed', BOB))).toBe(404);
    const restored = await service.restore('doomed', ALICE);
    expect(restored.version).toBe(1);
    expect(service.get('doomed', ALICE).trashed).toBeUndefined();
    await service.trash('doomed', 1, ALICE);
    await service.purge('doomed', ALICE);
    expect(store.get('doomed')).toBeUndefined();
    expect(await readdir(join(dir, 'content'))).toEqual([]);
    await service.create({ id: 'doomed', name: 'again', type: 'x', content: await content(service, 'e') }, ALICE);
    await store.close();
  });

  it('privacy: another subject cannot read a private document (403) nor change a public one (403); reads a public one with read access only', async () => {
    const { store, service } = await open();
    await service.create({ id: 'mine', name: 'M', type: 'x', content: await content(service, 'm') }, ALICE);
    expect(await refusal(() => service.get('mine', BOB))).toBe(403);
    expect(service.list(BOB, ALL).items).toEqual([]);
    await service.update('mine', 1, { isPrivate: false }, ALICE);
    expect(service.metadata(service.get('mine', BOB), BOB).access).toEqual(['read']);
    expect(service.list(BOB, ALL).items.map((d) => d.id)).toEqual(['mine']);
    expect(await refusal(service.update('mine', 2, { name: 'hijack' }, BOB))).toBe(403);
    await store.close();
  });

  it('a content read once and then replaced, trashed, purged or recreated reads as the current record says', async () => {
    const { store, service } = await open();
    await service.create({ id: 'kept', name: 'K', type: 'x', isPrivate: false, content: await content(service, 'first') }, ALICE);
    expect((await service.content('kept', BOB)).body).toEqual(Buffer.from('first'));
    await service.update('kept', 1, { content: await content(service, 'second') }, ALICE);
    expect((await service.content('kept', BOB)).body).toEqual(Buffer.from('second'));
    await service.trash('kept', 2, ALICE);
    expect(await refusal(service.content('kept', BOB))).toBe(404);
    await service.purge('kept', ALICE);
    await service.create({ id: 'kept', name: 'K', type: 'x', content: await content(service, 'third') }, ALICE);
    expect((await service.content('kept', ALICE)).body).toEqual(Buffer.from('third'));
    await store.close();
  });

  it('a listing reflects every write: a rename moves a document in the sort, a trashed one leaves the list for the trash', async () => {
    const { store, service } = await open();
    for (const [id, name] of [['a', 'Alpha'], ['b', 'Beta'], ['c', 'Gamma']] as const) {
      await service.create({ id, name, type: 'x', content: await content(service, id) }, ALICE);
    }
    const byName = new URLSearchParams({ sort: 'name' });
    const ids = (page: { items: { id: string }[] }) => page.items.map((d) => d.id);
    expect(ids(service.list(ALICE, byName))).toEqual(['a', 'b', 'c']);
    await service.update('a', 1, { name: 'Zeta' }, ALICE);
    expect(ids(service.list(ALICE, byName))).toEqual(['b', 'c', 'a']);
    expect(service.list(ALICE, new URLSearchParams({ sort: '-name', 'page-size': '1' })).items.map((d) => d.name)).toEqual(['Zeta']);
    await service.trash('b', 1, ALICE);
    expect(ids(service.list(ALICE, byName))).toEqual(['c', 'a']);
    expect(ids(service.list(ALICE, new URLSearchParams({ sort: 'name', filter: "name starts-with 'g'" })))).toEqual(['c']);
    expect(ids(service.trashList(ALICE, ALL))).toEqual(['b']);
    expect(service.list(BOB, byName).items).toEqual([]);
    await store.close();
  });

  it('the metadata text of a listing is the metadata as that caller sees it, description only when asked', async () => {
    const { store, service } = await open();
    const doc = await service.create({ id: 'shared', name: 'S', type: 'x', description: 'words', isPrivate: false, content: await content(service, 's') }, ALICE);
    for (const caller of [ALICE, BOB, ALICE]) {
      for (const description of [true, false]) {
        expect(JSON.parse(service.metadataView(doc, caller, { description }).text)).toEqual(service.metadata(doc, caller, { description }));
      }
    }
    expect(JSON.parse(service.metadataView(doc, BOB, { description: false }).text)).not.toHaveProperty('description');
    expect(JSON.parse(service.metadataView(doc, BOB).text).access).toEqual(['read']);
    await store.close();
  });

  it('a content file missing under its record is a store error, not an endless wait', async () => {
    const { store, service } = await open();
    const doc = await service.create({ id: 'lost', name: 'L', type: 'x', content: await content(service, 'l') }, ALICE);
    await rm(join(dir, 'content', doc.content.file));
    await expect(service.content('lost', ALICE)).rejects.toMatchObject({ code: 'STORE_IO' });
    await store.close();
  });

  it('survives a reopen, and removes content files no record refers to (an upload a crash interrupted)', async () => {
    const first = await open();
    const doc = await first.service.create({ id: 'kept', name: 'K', type: 'x', content: await content(first.service, 'kept bytes') }, ALICE);
    await first.store.close();
    await writeFile(join(dir, 'content', '0123456789abcdef0123456789abcdef.bin'), 'orphan');
    await writeFile(join(dir, 'content', 'ffffffffffffffffffffffffffffffff.bin.tmp-upload'), 'half');
    const second = await open();
    expect(second.store.get('kept')).toEqual(doc);
    expect(await readdir(join(dir, 'content'))).toEqual([doc.content.file]);
    await second.store.close();
  });
});

describe('document store: the order of durable steps', () => {
  let dir = '';
  tempDirPerTest('dashcd-docstore-order-', (created) => (dir = created));

  /** Records every open, write, sync, rename and unlink, by base name (directories as `dir:<name>`). */
  function recordingFs(steps: string[]): FsLayer {
    const label = (path: string) => path.split('/').slice(-2).join('/');
    return {
      ...nodeFs,
      async open(path, flags, mode) {
        const handle = await nodeFs.open(path, flags, mode);
        const name = flags === 'r' ? `dir:${label(path)}` : label(path);
        return {
          write: (data) => (steps.push(`write ${name}`), handle.write(data)),
          sync: () => (steps.push(`sync ${name}`), handle.sync()),
          close: () => handle.close(),
        };
      },
      rename: (from, to) => (steps.push(`rename ${label(from)} -> ${label(to)}`), nodeFs.rename(from, to)),
      unlink: (path) => (steps.push(`unlink ${label(path)}`), nodeFs.unlink(path)),
    };
  }

  it('a content file is durable under its name before the record that refers to it is journalled, and the write is acknowledged after that; the replaced file goes last', async () => {
    const steps: string[] = [];
    const store = await openDocumentStore({ dir, log: silentLogger(), fs: recordingFs(steps) });
    const service = new DocumentService(store, { now: () => 0 });
    const upload = service.upload();
    await upload.write(Buffer.from('{"v":1}'));
    steps.length = 0;
    const created = await service.create({ id: 'ordered', name: 'O', type: 'x', content: { upload, contentType: 'application/json' } }, { subject: 'a' });
    steps.push('acknowledged');
    const file = created.content.file;
    const at = (pattern: RegExp) => steps.findIndex((step) => pattern.test(step));
    const temp = `content/${file}.tmp-upload`;
    expect(at(new RegExp(`^sync ${temp}$`))).toBeGreaterThanOrEqual(0);
    expect(at(new RegExp(`^sync ${temp}$`))).toBeLessThan(at(new RegExp(`^rename ${temp} -> content/${file}$`)));
    expect(at(/^rename /)).toBeLessThan(at(/^sync dir:.*\/content$/));
    expect(at(/^sync dir:.*\/content$/)).toBeLessThan(at(/^write journal\//));
    expect(at(/^write journal\//)).toBeLessThan(at(/^acknowledged$/));

    const next = service.upload();
    await next.write(Buffer.from('{"v":2}'));
    steps.length = 0;
    await service.update('ordered', 1, { content: { upload: next, contentType: 'application/json' } }, { subject: 'a' });
    expect(at(/^write journal\//)).toBeGreaterThanOrEqual(0);
    expect(at(/^write journal\//)).toBeLessThan(at(new RegExp(`^unlink content/${file}$`)));
    await store.close();
  });
});
