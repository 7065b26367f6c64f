import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { documentCall, json, startDocumentServer, type DocumentServer } from '../helpers/documents.js';

/**
 * A document GET goes out as framing and content in separate pieces of one write (respond.ts BodyParts): the
 * Content-Length must count every piece, and HEAD must send none of them.
 */
describe('GET of a document: the multipart answer on the wire', () => {
  let server: DocumentServer;
  let token: string;
  let id: string;
  const content = JSON.stringify({ tiles: Array.from({ length: 200 }, (_, n) => ({ name: `tile ${n}`, note: 'ü€😀' })) });

  beforeAll(async () => {
    server = await startDocumentServer();
    token = await server.platformToken();
    const created = await documentCall(`${server.docsUrl()}/documents`, token, {
      method: 'POST',
      form: { name: 'a "quoted" name', type: 'dashboard', content: { bytes: content, contentType: 'application/json' } },
    });
    expect(created.status).toBe(201);
    id = json<{ id: string }>(created).id;
  });
  afterAll(async () => server.close());

  it('is Content-Length bytes long, its content part byte for byte, its name quoted as Go does, and answered twice alike', async () => {
    const first = await documentCall(`${server.docsUrl()}/documents/${id}`, token);
    expect(first.status).toBe(200);
    expect(Number(first.headers['content-length'])).toBe(first.body.length);
    const boundary = /boundary=([0-9a-f]{60})$/.exec(String(first.headers['content-type']))?.[1] ?? '';
    expect(boundary).not.toBe('');
    const text = first.body.toString('utf8');
    expect(text.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="metadata"\r\n`)).toBe(true);
    expect(text).toContain(`Content-Disposition: form-data; name="content"; filename="a \\"quoted\\" name"\r\nContent-Type: application/json\r\n\r\n${content}\r\n--${boundary}--\r\n`);
    // The same version is framed once (its boundary drawn after its content was written): a second answer is the same.
    const second = await documentCall(`${server.docsUrl()}/documents/${id}`, token);
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.body.toString('utf8')).toBe(text);
  });

  it('refuses in memory what it refuses otherwise: a private document of another owner, an unknown id, a token without the read scope', async () => {
    const stranger = await server.platformToken({ subject: 'stranger' });
    const writer = await server.platformToken({ scopes: ['document:documents:write'] });
    // Owner reads first: the content is held and the owner's token remembered, as for every later read.
    expect((await documentCall(`${server.docsUrl()}/documents/${id}`, token)).status).toBe(200);
    const cases = [
      { url: `${server.docsUrl()}/documents/${id}`, as: stranger },
      { url: `${server.docsUrl()}/documents/00000000-0000-4000-8000-000000000000`, as: token },
      { url: `${server.docsUrl()}/documents/${id}`, as: writer },
    ];
    for (const { url, as } of cases) {
      // The first request verifies the token the slow way; the second finds it remembered.
      const first = await documentCall(url, as);
      const second = await documentCall(url, as);
      expect(first.status).toBeGreaterThanOrEqual(400);
      expect(second.status).toBe(first.status);
      expect(json(second)).toEqual(expect.objectContaining({ error: expect.objectContaining({ code: first.status }) }));
    }
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const get = await documentCall(`${server.docsUrl()}/documents/${id}`, token);
    const head = await documentCall(`${server.docsUrl()}/documents/${id}`, token, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(head.headers['content-length']).toBe(String(get.body.length));
  });
});
