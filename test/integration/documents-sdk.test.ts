import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DocumentsClient, TrashClient, isConflict, isDocumentOrSnapshotNotFound } from '@dynatrace-sdk/client-document';
import { PlatformHttpClient, _OAuthHttpClient } from '@dynatrace-sdk/http-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPUS_DIR } from '../helpers/corpus.js';
import { ALL_PLATFORM_SCOPES, documentCall, startDocumentServer, type DocumentServer } from '../helpers/documents.js';

/**
 * The official TypeScript SDK, its OAuth http-client pointed at the embedded server (environment URL and token URL
 * as a Node app configures them), drives `dashcd serve`'s Document service: fidelity to what real clients send and
 * read, not only to our own client.
 */

// The SDK asks for Node ≥ 22, whose global `navigator` it reads (to tell Safari apart) before parsing a multipart
// answer; Node 20 has none. The same object as Node 22's, for that read only.
if (!('navigator' in globalThis)) Object.defineProperty(globalThis, 'navigator', { value: { userAgent: `Node.js/${process.versions.node}` }, configurable: true });

let server: DocumentServer;
let documents: DocumentsClient;
let trash: TrashClient;

beforeAll(async () => {
  server = await startDocumentServer();
  const client = await server.oauthClient({ subject: 'sdk-user' });
  const http = new _OAuthHttpClient({
    environmentUrl: server.baseUrl,
    authUrl: `${server.baseUrl}/sso/oauth2/token`,
    clientId: client.clientId,
    secret: client.secret,
    scopes: ALL_PLATFORM_SCOPES,
  });
  documents = new DocumentsClient(http);
  trash = new TrashClient(http);
});
afterAll(() => server.close());

/** The SDK's Binary (content parts and downloads), as bytes. */
async function bytesOf(binary: { get(type: 'array-buffer'): Promise<ArrayBuffer> } | undefined): Promise<Buffer> {
  if (!binary) throw new Error('no content');
  return Buffer.from(await binary.get('array-buffer'));
}

/** The SDK's binary parts take a Blob (or ArrayBuffer, stream, Binary), whose type becomes the part's Content-Type. */
function blob(bytes: Buffer): Blob {
  return new Blob([bytes], { type: 'application/json' });
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(() => new Error('expected a rejection'), (error: unknown) => error);
}

describe('the official @dynatrace-sdk/client-document against the embedded server', () => {
  it('creates, reads, lists with a filter, updates with the version, hits 409 when stale, deletes, restores and purges', async () => {
    const content = Buffer.from('{"version":21,"variables":[],"tiles":{},"layouts":{},"settings":{}}');
    const created = await documents.createDocument({ body: { name: 'SDK dashboard', type: 'dashboard', id: 'sdk-dash', description: 'made by the SDK', content: blob(content) } });
    expect(created).toMatchObject({ id: 'sdk-dash', name: 'SDK dashboard', type: 'dashboard', owner: 'sdk-user', isPrivate: true });
    expect(Number(created.version)).toBe(1);
    expect(created.modificationInfo.createdTime).toBeInstanceOf(Date);

    const got = await documents.getDocument({ id: 'sdk-dash' });
    expect(got.metadata).toMatchObject({ id: 'sdk-dash', name: 'SDK dashboard' });
    expect(await bytesOf(got.content)).toEqual(content);
    expect(await bytesOf(await documents.downloadDocumentContent({ id: 'sdk-dash' }))).toEqual(content);
    expect(await documents.getDocumentMetadata({ id: 'sdk-dash' })).toMatchObject({ id: 'sdk-dash', version: 1 });

    await documents.createDocument({ body: { name: 'SDK notebook', type: 'notebook', id: 'sdk-note', content: blob(Buffer.from('{"version":"5","sections":[]}')) } });
    const listed = await documents.listDocuments({ filter: "type == 'dashboard' and name starts-with 'sdk'" });
    expect(listed.totalCount).toBe(1);
    expect(listed.documents.map((d) => d.id)).toEqual(['sdk-dash']);

    const updated = await documents.updateDocument({ id: 'sdk-dash', optimisticLockingVersion: '1', body: { name: 'SDK dashboard v2', content: blob(Buffer.from('{"version":21}')) } });
    expect(updated.documentMetadata).toMatchObject({ name: 'SDK dashboard v2' });
    expect(Number(updated.documentMetadata.version)).toBe(2);
    const replaced = await documents.updateDocumentContent({ id: 'sdk-dash', optimisticLockingVersion: '2', body: { content: blob(Buffer.from('{"version":22}')) } });
    expect(Number(replaced.version)).toBe(3);

    const stale = await rejection(documents.updateDocument({ id: 'sdk-dash', optimisticLockingVersion: '1', body: { name: 'lost update' } }));
    expect(isConflict(stale)).toBe(true);
    expect((await documents.getDocumentMetadata({ id: 'sdk-dash' })).name).toBe('SDK dashboard v2');

    await documents.deleteDocument({ id: 'sdk-dash', optimisticLockingVersion: '3' });
    expect(isDocumentOrSnapshotNotFound(await rejection(documents.getDocumentMetadata({ id: 'sdk-dash' })))).toBe(true);
    const trashed = await trash.listTrashedDocuments();
    expect(trashed.documents.map((d) => d.id)).toEqual(['sdk-dash']);
    expect(trashed.documents[0]?.deletionInfo.deletedTime).toBeInstanceOf(Date);
    expect(await trash.inspectTrashedDocument({ id: 'sdk-dash' })).toMatchObject({ id: 'sdk-dash', owner: 'sdk-user' });

    await trash.restoreTrashedDocument({ id: 'sdk-dash' });
    expect(await bytesOf(await documents.downloadDocumentContent({ id: 'sdk-dash' }))).toEqual(Buffer.from('{"version":22}'));

    await documents.deleteDocument({ id: 'sdk-dash', optimisticLockingVersion: '3' });
    await trash.deleteTrashedDocument({ id: 'sdk-dash' });
    expect((await trash.listTrashedDocuments()).totalCount).toBe(0);
    expect(isDocumentOrSnapshotNotFound(await rejection(documents.getDocumentMetadata({ id: 'sdk-dash' })))).toBe(true);
  });

  it('works with a platform token as the bearer of a plain http-client too', async () => {
    const token = await server.platformToken({ subject: 'token-user', scopes: ['document:documents:read', 'document:documents:write'] });
    const viaToken = new DocumentsClient(new PlatformHttpClient({ baseUrl: server.baseUrl, defaultHeaders: { Authorization: `Bearer ${token}` } }));
    const created = await viaToken.createDocument({ body: { name: 'By token', type: 'notebook', content: blob(Buffer.from('{"version":"6"}')) } });
    expect(created.owner).toBe('token-user');
    expect((await viaToken.listDocuments({ filter: "owner = 'token-user'" })).documents.map((d) => d.id)).toEqual([created.id]);
  });

  it('stores every document of the corpus and returns it byte for byte (SDK upload; multipart GET and content download)', async () => {
    const files: string[] = [];
    for (const kind of ['dashboards', 'notebooks']) {
      for (const name of (await readdir(join(CORPUS_DIR, 'documents', kind))).filter((file) => file.endsWith('.json'))) files.push(join(CORPUS_DIR, 'documents', kind, name));
    }
    expect(files.length).toBeGreaterThan(70);
    const token = await server.platformToken({ subject: 'sdk-user' });
    for (const [index, file] of files.entries()) {
      const bytes = await readFile(file);
      const type = file.includes('/notebooks/') ? 'notebook' : 'dashboard';
      const created = await documents.createDocument({ body: { name: `corpus ${index}`, type, id: `corpus-${index}`, content: blob(bytes) } });
      const got = await documents.getDocument({ id: created.id });
      expect((await bytesOf(got.content)).equals(bytes), file).toBe(true);
      const raw = await documentCall(`${server.docsUrl()}/documents/${created.id}/content`, token);
      expect(raw.body.equals(bytes), file).toBe(true);
    }
  });
});
