import { readdir, rename } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readMultipart } from '../../src/lib/multipart-read.js';
import { EnvironmentId } from '../../src/schema/ids.js';
import { DocumentMetadata } from '../../src/schema/documents.js';
import {
  documentCall,
  expectPlatformError,
  json,
  rawRequest,
  startDocumentServer,
  type DocumentParts,
  type DocumentServer,
  type RawResponse,
} from '../helpers/documents.js';
import { captureLog } from '../helpers/log-capture.js';
import { waitFor } from '../helpers/wait.js';

const DASHBOARD = '{"version":21,"variables":[],"tiles":{"0":{"type":"markdown","content":"# Hi"}},"layouts":{"0":{"x":0,"y":0,"w":24,"h":2}},"settings":{},"importedWithCode":false}';

let server: DocumentServer;
let token = '';
let docs = '';
const captured = captureLog('warn');

beforeAll(async () => {
  server = await startDocumentServer({ log: captured.log });
  token = await server.platformToken({ subject: 'alice' });
  docs = server.docsUrl();
});
afterAll(() => server.close());

const create = (form: DocumentParts, as = token) => documentCall(`${docs}/documents`, as, { method: 'POST', form });
const dashboard = (name: string, id?: string): DocumentParts => ({ name, type: 'dashboard', ...(id ? { id } : {}), content: { bytes: DASHBOARD, contentType: 'application/json' } });

/** The parts of a multipart answer, read as Go's ReadForm sorts them: with a filename a file, else a value. */
async function parts(response: RawResponse): Promise<Array<{ name: string; filename: string | undefined; contentType: string | undefined; body: Buffer }>> {
  const boundary = /boundary=(\S+)/.exec(String(response.headers['content-type']))?.[1] ?? '';
  const found: Array<{ name: string; filename: string | undefined; contentType: string | undefined; body: Buffer }> = [];
  await readMultipart([response.body], boundary, (headers) => {
    const chunks: Buffer[] = [];
    return { write: (chunk) => void chunks.push(Buffer.from(chunk)), end: () => void found.push({ ...headers, body: Buffer.concat(chunks) }) };
  });
  return found;
}

describe('documents: create and read', () => {
  it('creates from a Go-framed multipart body (201, bare metadata, version a JSON number, Document-Version) and reads it back', async () => {
    const created = await create({ ...dashboard('Ops overview', 'ops-overview'), description: 'the ops view' });
    expect(created.status).toBe(201);
    expect(created.headers['document-version']).toBe('1');
    const metadata = json(created);
    expect(DocumentMetadata.parse(metadata)).toBeTruthy();
    expect(metadata).toMatchObject({ id: 'ops-overview', name: 'Ops overview', type: 'dashboard', description: 'the ops view', version: 1, owner: 'alice', isPrivate: true, access: ['read', 'write', 'delete'], originAppId: null, originExtensionId: null });
    expect(created.body.toString()).toContain('"version":1,');

    const meta = await documentCall(`${docs}/documents/ops-overview/metadata`, token);
    expect(json(meta)).toEqual(metadata);
    expect(meta.headers['document-version']).toBe('1');

    const content = await documentCall(`${docs}/documents/ops-overview/content`, token);
    expect(content.status).toBe(200);
    expect(content.headers['content-type']).toBe('application/json');
    // Served as the type stored, never sniffed into another (a stored text/html must not become a page).
    expect(content.headers['x-content-type-options']).toBe('nosniff');
    expect(content.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
    expect(content.body.toString('utf8')).toBe(DASHBOARD);
  });

  it('GET answers the layout Go\'s ReadForm needs: metadata without filename (a value), content with the name as filename (a file), byte-exact', async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x0d, 0x0a, 0x2d, 0x2d, 0x41]);
    await create({ name: 'Bin "quoted" doc', type: 'blob', id: 'binary-doc', content: { bytes, contentType: 'application/octet-stream' } });
    const response = await documentCall(`${docs}/documents/binary-doc`, token);
    expect(response.status).toBe(200);
    const contentType = String(response.headers['content-type']);
    expect(contentType).toMatch(/^multipart\/form-data; boundary=[0-9a-f]{60}$/);
    const boundary = contentType.slice(contentType.indexOf('=') + 1);
    expect(Number(response.headers['content-length'])).toBe(response.body.length);
    const text = response.body.toString('latin1');
    const metadataJson = JSON.stringify(json(await documentCall(`${docs}/documents/binary-doc/metadata`, token)));
    expect(text).toBe(
      `--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\nContent-Type: application/json\r\n\r\n${metadataJson}` +
        `\r\n--${boundary}\r\nContent-Disposition: form-data; name="content"; filename="Bin \\"quoted\\" doc"\r\nContent-Type: application/octet-stream\r\n\r\n` +
        `${bytes.toString('latin1')}\r\n--${boundary}--\r\n`,
    );
    const [metadata, content] = await parts(response);
    expect(metadata).toMatchObject({ name: 'metadata', filename: undefined, contentType: 'application/json' });
    expect(content).toMatchObject({ name: 'content', filename: 'Bin "quoted" doc', contentType: 'application/octet-stream', body: bytes });
  });

  it('frames each version with a boundary drawn after its content: content that holds an earlier boundary reads back whole', async () => {
    await create({ name: 'Framed', type: 'blob', id: 'framed-doc', content: { bytes: 'first', contentType: 'text/plain' } });
    const url = `${docs}/documents/framed-doc`;
    const boundaryOf = (response: RawResponse): string => /boundary=(\S+)/.exec(String(response.headers['content-type']))?.[1] ?? '';
    const first = await documentCall(url, token);
    // The same version, asked again, is framed as before (its framing is made once per version and view).
    expect(boundaryOf(await documentCall(url, token))).toBe(boundaryOf(first));
    // A writer who read that boundary puts it in the next version's content, as a forged part would need.
    const forged = `\r\n--${boundaryOf(first)}\r\nContent-Disposition: form-data; name="metadata"\r\n\r\n{"owner":"mallory"}`;
    const patched = await documentCall(`${url}?optimistic-locking-version=1`, token, { method: 'PATCH', form: { content: { bytes: forged, contentType: 'text/plain' } } });
    expect(patched.status).toBe(200);
    const second = await documentCall(url, token);
    expect(boundaryOf(second)).not.toBe(boundaryOf(first));
    const [metadata, content] = await parts(second);
    expect(JSON.parse(metadata?.body.toString() ?? '{}')).toMatchObject({ id: 'framed-doc', owner: 'alice', version: 2 });
    expect(content?.body.toString()).toBe(forged);
  });

  it('generates a UUID id when none is given; refuses a taken id (409), a UUID, bad characters or over 100 characters (400)', async () => {
    const generated = json(await create(dashboard('No id')));
    expect(generated.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await create(dashboard('First', 'taken-id'));
    expectPlatformError(await create(dashboard('Second', 'taken-id')), 409, /already exists/);
    expectPlatformError(await create(dashboard('Uuid', '0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d')), 400, /must not be a UUID/);
    expectPlatformError(await create(dashboard('Chars', 'a_b')), 400, /letters, digits and dashes/);
    expectPlatformError(await create(dashboard('Long', 'x'.repeat(101))), 400, /at most 100/);
    expect((await create(dashboard('Contains a UUID', 'my-0b4e3c5a-1d2f-4a6b-8c9d-0e1f2a3b4c5d'))).status).toBe(201);
  });

  it('refuses an id that differs from a taken one only in letter case (409), also when both are created at once', async () => {
    // Each record is a file named by its id: a case-insensitive file system (macOS, Windows) would keep one of the two.
    await create(dashboard('First', 'case-id'));
    const twin = await create(dashboard('Twin', 'Case-ID'));
    expectPlatformError(twin, 409, /A document whose id differs from Case-ID only in letter case already exists; such ids are refused here/);
    // The taken id is not named: it may be another owner's private document.
    expect(twin.body.toString()).not.toContain('case-id');
    const both = await Promise.all([create(dashboard('A', 'Race-Id')), create(dashboard('B', 'race-id'))]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
  });
});

describe('documents: versions', () => {
  it('PATCH needs the version: stale is 409 and changes nothing; a match bumps it by one, tolerating extra parts such as id; isPrivate as a string', async () => {
    await create(dashboard('Versioned', 'versioned'));
    const url = `${docs}/documents/versioned`;
    expectPlatformError(await documentCall(url, token, { method: 'PATCH', form: { name: 'x' } }), 400, /optimistic-locking-version/);
    expectPlatformError(await documentCall(`${url}?optimistic-locking-version=2`, token, { method: 'PATCH', form: { name: 'Stale' } }), 409, /version 1, not 2/);
    expect(json(await documentCall(`${url}/metadata`, token))).toMatchObject({ name: 'Versioned', version: 1 });

    const patched = await documentCall(`${url}?optimistic-locking-version=1`, token, {
      method: 'PATCH',
      form: { name: 'Renamed', type: 'dashboard', id: 'versioned', isPrivate: 'false', content: { bytes: '{"version":21}', contentType: 'application/octet-stream' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.headers['document-version']).toBe('2');
    expect(json(patched)).toMatchObject({ documentMetadata: { id: 'versioned', name: 'Renamed', version: 2, isPrivate: false } });
    const content = await documentCall(`${url}/content`, token);
    expect([content.headers['content-type'], content.body.toString()]).toEqual(['application/octet-stream', '{"version":21}']);

    expectPlatformError(await documentCall(`${url}?optimistic-locking-version=2`, token, { method: 'PATCH', form: { extra: [['id', 'versioned']] } }), 400, /at least one of the parts/);
    expectPlatformError(await documentCall(`${url}?optimistic-locking-version=2`, token, { method: 'PATCH', form: { isPrivate: 'yes' } }), 400, /isPrivate/);

    const put = await documentCall(`${url}/content?optimistic-locking-version=2`, token, { method: 'PUT', form: { content: { bytes: 'new', contentType: 'text/plain' } } });
    expect(put.status).toBe(200);
    expect(json(put)).toMatchObject({ version: 3 });
    expectPlatformError(await documentCall(`${url}/content?optimistic-locking-version=2`, token, { method: 'PUT', form: { content: { bytes: 'late', contentType: 'text/plain' } } }), 409);
    expect((await documentCall(`${url}/content`, token)).body.toString()).toBe('new');
  });

  it('PATCH /metadata renames and retypes (bare metadata answer); a content part there is 400 and its upload is discarded; PUT /content needs one', async () => {
    await create(dashboard('Meta', 'meta-only'));
    const url = `${docs}/documents/meta-only`;
    const contentDir = join(server.dataDir, 'env', 'local', 'documents', 'content');
    const files = await readdir(contentDir);
    expectPlatformError(await documentCall(`${url}/metadata?optimistic-locking-version=1`, token, { method: 'PATCH', form: { name: 'x', content: { bytes: 'no', contentType: 'text/plain' } } }), 400, /PUT \/documents\/\{id\}\/content/);
    expect((await readdir(contentDir)).sort()).toEqual([...files].sort());
    expectPlatformError(await documentCall(`${url}/content?optimistic-locking-version=1`, token, { method: 'PUT', form: { name: 'x' } }), 400, /'content' part/);
    // A part this endpoint would only drop is refused, not answered 200 with nothing changed.
    for (const form of [{ description: 'new words' }, { isPrivate: 'false' }]) {
      expectPlatformError(await documentCall(`${url}/metadata?optimistic-locking-version=1`, token, { method: 'PATCH', form }), 400, /PATCH \/documents\/\{id\}\./);
    }
    expect(json(await documentCall(`${url}/metadata`, token))).toMatchObject({ version: 1 });
    const patched = await documentCall(`${url}/metadata?optimistic-locking-version=1`, token, { method: 'PATCH', form: { name: 'Meta renamed', type: 'notebook' } });
    expect(patched.headers['document-version']).toBe('2');
    expect(json(patched)).toMatchObject({ id: 'meta-only', name: 'Meta renamed', type: 'notebook', version: 2 });
  });
});

describe('documents: trash', () => {
  it('delete moves to the trash (404 at the document, id still taken); restore brings it back; purge frees the id', async () => {
    await create(dashboard('Trashed', 'to-trash'));
    const url = `${docs}/documents/to-trash`;
    expectPlatformError(await documentCall(url, token, { method: 'DELETE' }), 400, /optimistic-locking-version/);
    expectPlatformError(await documentCall(`${url}?optimistic-locking-version=9`, token, { method: 'DELETE' }), 409);
    expect((await documentCall(`${url}?optimistic-locking-version=1`, token, { method: 'DELETE' })).status).toBe(204);
    expectPlatformError(await documentCall(url, token), 404);
    expectPlatformError(await documentCall(`${url}/metadata`, token), 404);
    expectPlatformError(await create(dashboard('Again', 'to-trash')), 409, /in the trash/);

    const trash = json<{ documents: Array<Record<string, unknown>>; totalCount: number }>(await documentCall(`${docs}/trash/documents`, token));
    expect(trash.documents.find((d) => d.id === 'to-trash')).toMatchObject({ name: 'Trashed', type: 'dashboard', deletionInfo: { deletedBy: 'alice' } });
    expect(json(await documentCall(`${docs}/trash/documents/to-trash`, token))).toMatchObject({ id: 'to-trash', version: 1, owner: 'alice', deletionInfo: { deletedBy: 'alice' } });

    expect((await documentCall(`${docs}/trash/documents/to-trash/restore`, token, { method: 'POST' })).status).toBe(204);
    expect(json(await documentCall(`${url}/metadata`, token))).toMatchObject({ name: 'Trashed', version: 1 });
    expectPlatformError(await documentCall(`${docs}/trash/documents/to-trash`, token), 404);

    await documentCall(`${url}?optimistic-locking-version=1`, token, { method: 'DELETE' });
    expect((await documentCall(`${docs}/trash/documents/to-trash`, token, { method: 'DELETE' })).status).toBe(204);
    expectPlatformError(await documentCall(`${docs}/trash/documents/to-trash`, token, { method: 'DELETE' }), 404);
    expect((await create(dashboard('Reborn', 'to-trash'))).status).toBe(201);
  });
});

describe('documents: list', () => {
  let lister = '';
  beforeAll(async () => {
    lister = await server.platformToken({ subject: 'lister' });
    for (let i = 0; i < 25; i++) {
      await create({ name: `Doc ${String(i).padStart(2, '0')}`, type: i % 2 === 0 ? 'dashboard' : 'notebook', id: `list-${String(i).padStart(2, '0')}`, content: { bytes: '{}', contentType: 'application/json' } }, lister);
    }
  });
  const list = (query: string) => documentCall(`${docs}/documents${query}`, lister);
  // Others' public documents (made public by tests above) are visible too: these tests look at their own.
  const OWN = `filter=${encodeURIComponent("owner = 'lister'")}`;
  type Listed = { documents: Array<{ id: string; name: string; access: string[] }>; totalCount: number; nextPageKey?: string };

  it('pages by 20 by default, with totalCount over the whole result and a nextPageKey until the end', async () => {
    const first = json<Listed>(await list(`?${OWN}`));
    expect(first.documents).toHaveLength(20);
    expect(first.totalCount).toBe(25);
    expect(first.documents[0]?.id).toBe('list-00');
    const second = json<Listed>(await list(`?page-key=${first.nextPageKey ?? ''}&filter=ignored-beside-a-page-key`));
    expect(second.documents.map((d) => d.id)).toEqual(['list-20', 'list-21', 'list-22', 'list-23', 'list-24']);
    expect(second.nextPageKey).toBeUndefined();
  });

  it('filters, sorts and sizes pages; ignores unknown query parameters', async () => {
    const page = json<Listed>(await list(`?filter=${encodeURIComponent("type=='notebook' and name contains 'doc 1'")}&sort=-name&page-size=3&add-field=originExtensionId`));
    expect(page.totalCount).toBe(5);
    expect(page.documents.map((d) => d.id)).toEqual(['list-19', 'list-17', 'list-15']);
    const next = json<Listed>(await list(`?page-key=${page.nextPageKey ?? ''}`));
    expect(next.documents.map((d) => d.id)).toEqual(['list-13', 'list-11']);
    expect(json<Listed>(await list(`?${OWN}&page-size=1000`)).documents).toHaveLength(25);
  });

  it('lists only what the caller may read: its own and public documents', async () => {
    const other = await server.platformToken({ subject: 'stranger' });
    const mine = `${docs}/documents?${OWN}`;
    expect(json<Listed>(await documentCall(mine, other)).totalCount).toBe(0);
    await documentCall(`${docs}/documents/list-00?optimistic-locking-version=1`, lister, { method: 'PATCH', form: { isPrivate: 'false' } });
    const seen = json<Listed>(await documentCall(mine, other));
    expect(seen.documents.map((d) => [d.id, d.access])).toEqual([['list-00', ['read']]]);
    expectPlatformError(await documentCall(`${docs}/documents/list-01`, other), 403);
    expectPlatformError(await documentCall(`${docs}/documents/list-00?optimistic-locking-version=2`, other, { method: 'PATCH', form: { name: 'mine now' } }), 403);
    expectPlatformError(await documentCall(`${docs}/documents/list-00?optimistic-locking-version=2`, other, { method: 'DELETE' }), 403);
  });

  it('lists each document as its own metadata read answers it, byte for byte, names in any script; an empty page is empty', async () => {
    const owner = await server.platformToken({ subject: 'unicoder' });
    const names = ['Übersicht — 監視 🚀', 'plain', 'naïve "quoted" \\ name'];
    for (const [i, name] of names.entries()) {
      expect((await create({ name, type: 'dashboard', id: `unicode-${i}`, content: { bytes: '{}', contentType: 'application/json' } }, owner)).status).toBe(201);
    }
    const filter = `filter=${encodeURIComponent("owner = 'unicoder'")}`;
    const metadata = await Promise.all(names.map(async (_, i) => (await documentCall(`${docs}/documents/unicode-${i}/metadata`, owner)).body.toString()));
    const listed = await documentCall(`${docs}/documents?${filter}&page-size=2`, owner);
    const nextPageKey = json<{ nextPageKey: string }>(listed).nextPageKey;
    expect(listed.body.toString()).toBe(`{"documents":[${metadata[0]},${metadata[1]}],"totalCount":3,"nextPageKey":${JSON.stringify(nextPageKey)}}`);
    const rest = await documentCall(`${docs}/documents?page-key=${nextPageKey}`, owner);
    expect(rest.body.toString()).toBe(`{"documents":[${metadata[2]}],"totalCount":3}`);
    const none = await documentCall(`${docs}/documents?filter=${encodeURIComponent("name = 'no such name'")}`, owner);
    expect(none.body.toString()).toBe('{"documents":[],"totalCount":0}');
    expect(Number(none.headers['content-length'])).toBe(none.body.length);
  });

  it.each([
    ['?filter=' + encodeURIComponent("title = 'x'"), /Unknown field 'title'/],
    ['?filter=' + encodeURIComponent("name = 'x"), /not closed/],
    ['?page-size=0', /page-size/],
    ['?page-size=1001', /page-size/],
    ['?page-size=ten', /page-size/],
    ['?sort=name,', /blank field/],
    ['?sort=color', /unknown field 'color'/],
    ['?page-key=garbage', /page-key/],
    // The sort's error comes before the filter's.
    ['?sort=color&filter=' + encodeURIComponent("title = 'x'"), /unknown field 'color'/],
  ])('400 for %s', async (query, message) => {
    expectPlatformError(await list(query), 400, message);
    // A listing's view is kept only once it parsed: asked again, the same 400.
    expectPlatformError(await list(query), 400, message);
  });
});

describe('documents: auth', () => {
  it('401 without a bearer token, with an unknown one, or with a classic Api-Token; 403 without the scope', async () => {
    expectPlatformError(await documentCall(`${docs}/documents`, undefined), 401, /Bearer/);
    expectPlatformError(await documentCall(`${docs}/documents`, 'dt0s16.AAAAAAAAAAAAAAAAAAAAAAAA.' + 'A'.repeat(64)), 401);
    expectPlatformError(await rawRequest(`${docs}/documents`, { headers: { authorization: `Api-Token ${server.token}` } }), 401);
    expectPlatformError(await documentCall(`${docs}/documents`, server.token), 401);
    const reader = await server.platformToken({ scopes: ['document:documents:read'] });
    expect((await documentCall(`${docs}/documents`, reader)).status).toBe(200);
    expectPlatformError(await create(dashboard('No write'), reader), 403, /document:documents:write/);
    expectPlatformError(await documentCall(`${docs}/trash/documents`, reader), 403, /document:trash\.documents:read/);
  });

  it('a platform token is refused by the classic API', async () => {
    const response = await rawRequest(`${server.url}/api/config/v1/dashboards`, { headers: { authorization: `Api-Token ${token}` } });
    expect(response.status).toBe(401);
  });

  it('the OAuth client-credentials grant issues a bearer token with the asked scopes; bad secrets and scopes are refused in OAuth\'s terms', async () => {
    const client = await server.oauthClient({ subject: 'svc', scopes: ['document:documents:read', 'document:documents:write'] });
    const grant = (form: Record<string, string>) =>
      rawRequest(`${server.baseUrl}/sso/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
    const granted = await grant({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret, scope: 'document:documents:read', resource: 'urn:dtenvironment:local' });
    expect(granted.status).toBe(200);
    const body = json<{ access_token: string; token_type: string; expires_in: number; scope: string }>(granted);
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'document:documents:read' });
    expect((await documentCall(`${docs}/documents`, body.access_token)).status).toBe(200);
    expectPlatformError(await create(dashboard('Read only grant'), body.access_token), 403);

    expect(json(await grant({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: otherLastCharacter(client.secret) }))).toMatchObject({ error: 'invalid_client' });
    expect(json(await grant({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.secret, scope: 'document:documents:delete' }))).toMatchObject({ error: 'invalid_scope' });
    expect(json(await grant({ grant_type: 'password', client_id: client.clientId, client_secret: client.secret }))).toMatchObject({ error: 'unsupported_grant_type' });
    const basic = await rawRequest(`${server.baseUrl}/sso/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${client.secret}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    expect(json(basic)).toMatchObject({ scope: 'document:documents:read document:documents:write' });
  });
});

describe('documents: bad input is a 4xx with the envelope, never a 5xx', () => {
  it.each<[string, DocumentParts, RegExp]>([
    ['no content part', { name: 'x', type: 'dashboard' }, /needs a 'content' part/],
    ['empty content', { name: 'x', type: 'dashboard', content: { bytes: '', contentType: 'application/json' } }, /empty/],
    ['no name', { type: 'dashboard', content: { bytes: '{}', contentType: 'application/json' } }, /name/],
    ['a name over 128', { name: 'n'.repeat(129), type: 'dashboard', content: { bytes: '{}', contentType: 'application/json' } }, /at most 128/],
    ['a type over 128', { name: 'n', type: 't'.repeat(129), content: { bytes: '{}', contentType: 'application/json' } }, /at most 128/],
    ['a description over 256', { name: 'n', type: 't', description: 'd'.repeat(257), content: { bytes: '{}', contentType: 'application/json' } }, /at most 256/],
    ['a content type that is no MIME type', { name: 'n', type: 't', content: { bytes: '{}', contentType: 'json' } }, /not a valid MIME type/],
    // It would be served back as the content's Content-Type, which Node refuses to write: every read a 500.
    ['a content type parameter no header may carry', { name: 'n', type: 't', content: { bytes: '{}', contentType: 'application/json; x="€"' } }, /not a valid MIME type/],
  ])('POST with %s: 400', async (_what, form, message) => {
    expectPlatformError(await create(form), 400, message);
  });

  it('malformed multipart, a wrong media type, a content part without Content-Type: 400', async () => {
    const post = (body: string, contentType: string) => rawRequest(`${docs}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
    expectPlatformError(await post('--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx', 'multipart/form-data; boundary=b'), 400, /closing boundary/);
    expectPlatformError(await post('{"name":"x"}', 'application/json'), 400, /multipart\/form-data/);
    expectPlatformError(await post('--b\r\nContent-Disposition: form-data; name="content"; filename="a"\r\n\r\n{}\r\n--b--\r\n', 'multipart/form-data; boundary=b'), 400, /Content-Type header of its own/);
    expectPlatformError(await post('x', 'multipart/form-data'), 400, /boundary/);
  });

  it('413 for content over 50 MB, before the body is sent when its length is declared', async () => {
    const response = await new Promise<RawResponse>((resolve, reject) => {
      const declared = 52 * 1024 * 1024;
      import('node:http').then(({ request }) => {
        const req = request(`${docs}/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(declared), expect: '100-continue' },
        }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        });
        req.on('continue', () => reject(new Error('the server invited a body over the limit')));
        req.on('error', reject);
        req.flushHeaders();
      }, reject);
    });
    expectPlatformError(response, 413, /50 MB/);
  });

  it('accepts content of exactly 50 MB and streams it back byte for byte', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const created = await create({ name: 'fifty', type: 'blob', id: 'fifty-mb', content: { bytes: big, contentType: 'application/octet-stream' } });
    expect(created.status, created.body.toString().slice(0, 200)).toBe(201);
    const content = await documentCall(`${docs}/documents/fifty-mb/content`, token);
    expect(Number(content.headers['content-length'])).toBe(big.length);
    expect(content.body.equals(big)).toBe(true);
  });

  it('413 for a streamed body whose content passes 50 MB', async () => {
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x61);
    const response = await create({ name: 'big', type: 'blob', content: { bytes: big, contentType: 'application/octet-stream' } }).catch((error: unknown) => error);
    // Answered while the body is still arriving: the status if the client read it, else a cut connection; never a 5xx.
    if (response instanceof Error) expect(response.message).toMatch(/EPIPE|ECONNRESET|socket hang up/);
    else expectPlatformError(response as RawResponse, 413, /50 MB/);
  });

  it('a client that goes away mid-upload costs a discarded upload and no server error; the server goes on', async () => {
    const contentDir = join(server.dataDir, 'env', 'local', 'documents', 'content');
    const uploads = async () => (await readdir(contentDir)).filter((name) => name.includes('.tmp-'));
    expect(await uploads()).toEqual([]);
    const head =
      `POST /platform/document/v1/documents HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
      'Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 10000000\r\n\r\n' +
      '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\ncut\r\n--b\r\nContent-Disposition: form-data; name="type"\r\n\r\nx\r\n' +
      '--b\r\nContent-Disposition: form-data; name="content"; filename="cut"\r\nContent-Type: application/json\r\n\r\n';
    const socket = connect(server.server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(head);
    socket.write(Buffer.alloc(256 * 1024, 0x61));
    const upload = await waitFor(async () => (await uploads())[0], { what: 'the upload to start' });
    socket.destroy();
    await waitFor(async () => !(await uploads()).includes(upload), { what: 'the cut upload to be discarded' });
    expect(captured.lines.filter((line) => line.msg === 'document request failed')).toEqual([]);
    expect((await documentCall(`${docs}/documents`, token)).status).toBe(200);
  });

  it('a disk fault while the body is still arriving is a logged 500, not blamed on the client as a cut-off body', async () => {
    const contentDir = join(server.dataDir, 'env', 'local', 'documents', 'content');
    const aside = `${contentDir}-aside`;
    expect((await documentCall(`${docs}/documents`, token)).status).toBe(200);
    await rename(contentDir, aside);
    try {
      const response = await create({ name: 'no disk', type: 'blob', content: { bytes: Buffer.alloc(8 * 1024 * 1024, 0x61), contentType: 'application/octet-stream' } }).catch((error: unknown) => error);
      if (response instanceof Error) expect(response.message).toMatch(/EPIPE|ECONNRESET|socket hang up/);
      else expectPlatformError(response as RawResponse, 500, /errorRef/);
      await waitFor(() => captured.lines.some((line) => line.msg === 'document request failed'), { what: 'the fault to be logged' });
    } finally {
      await rename(aside, contentDir);
      captured.lines.length = 0;
    }
  });

  it('a token request cut off mid-body is no server error; the endpoint goes on', async () => {
    const socket = connect(server.server.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write('POST /sso/oauth2/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\ngrant_type=client_');
    await new Promise<void>((resolve) => socket.once('ready', resolve));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.destroy();
    await closed;
    const after = await rawRequest(`${server.baseUrl}/sso/oauth2/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password' });
    expect(json(after)).toMatchObject({ error: 'unsupported_grant_type' });
    expect(captured.lines.filter((line) => line.msg === 'document request failed')).toEqual([]);
  });

  it('a token request over 16 KB is 413 in OAuth\'s terms, declared or chunked; an answer before the body\'s end closes the connection instead of reading the rest', async () => {
    const piece = 'a'.repeat(20_000);
    const answer = async (head: string, body: string): Promise<string> => {
      const socket = connect(server.server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      let raw = '';
      socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      socket.write(`POST /sso/oauth2/token HTTP/1.1\r\nHost: x\r\n${head}\r\n${body}`);
      await closed;
      expect(raw.toLowerCase(), head).toContain('connection: close');
      return raw;
    };
    const form = 'Content-Type: application/x-www-form-urlencoded\r\n';
    for (const raw of [
      await answer(`${form}Content-Length: 900000000\r\n`, piece),
      await answer(`${form}Transfer-Encoding: chunked\r\n`, `${piece.length.toString(16)}\r\n${piece}\r\n`),
    ]) {
      expect(raw.split('\r\n')[0]).toBe('HTTP/1.1 413 Payload Too Large');
      expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'invalid_request', error_description: 'The body is over 16384 bytes.' });
    }
    // A wrong media type is answered without reading the body.
    const wrongType = await answer('Content-Type: application/json\r\nContent-Length: 1000\r\n', '{"grant_type":');
    expect(wrongType.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
  });

  it('404 for ids that cannot exist and unknown environments; 405 for a method the path lacks', async () => {
    expectPlatformError(await documentCall(`${docs}/documents/..%2F..%2Fetc`, token), 404);
    expectPlatformError(await documentCall(`${docs}/documents/${'x'.repeat(101)}`, token), 404);
    expectPlatformError(await documentCall(`${server.baseUrl}/e/nowhere/platform/document/v1/documents`, token), 404, /Environment/);
    expectPlatformError(await documentCall(`${docs}/documents/x`, token, { method: 'PUT' }), 405);
    expectPlatformError(await documentCall(`${docs}/nothing-here`, token), 404);
  });
});

describe('documents: environments', () => {
  it('each environment has its own documents and platform credentials under /e/{env}/platform/document/v1', async () => {
    const staging = EnvironmentId.parse('staging');
    await server.server.environments.ensure(staging);
    const stagingToken = await server.platformToken({ env: staging, subject: 'alice' });
    const created = await documentCall(`${server.docsUrl(staging)}/documents`, stagingToken, { method: 'POST', form: dashboard('Staging only', 'env-doc') });
    expect(created.status).toBe(201);
    expectPlatformError(await documentCall(`${docs}/documents/env-doc`, token), 404);
    expectPlatformError(await documentCall(`${server.docsUrl(staging)}/documents`, token), 401);
    expect(json(await documentCall(`${server.docsUrl(staging)}/documents/env-doc/metadata`, stagingToken))).toMatchObject({ name: 'Staging only' });
  });
});

/** The secret with its last character changed: replacing it with a fixed one left it unchanged when it already was that one (1 in 64). */
function otherLastCharacter(secret: string): string {
  return `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
}
