import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlatformErrorEnvelope } from '../../src/schema/documents.js';
import { documentForm, rawRequest, startDocumentServer, type DocumentServer, type RawResponse } from '../helpers/documents.js';

let server: DocumentServer;
let token = '';

beforeAll(async () => {
  server = await startDocumentServer();
  token = await server.platformToken();
});
afterAll(() => server.close());

/** Every answer below 500, every error the platform envelope. */
function expectHandled(response: RawResponse): void {
  expect(response.status, response.body.toString('utf8').slice(0, 200)).toBeLessThan(500);
  if (response.status >= 400) expect(PlatformErrorEnvelope.safeParse(JSON.parse(response.body.toString('utf8'))).success).toBe(true);
}

const VALID = documentForm({ name: 'Fuzz', type: 'dashboard', description: 'd', isPrivate: 'true', content: { bytes: '{"version":21}', contentType: 'application/json' } });

/** A valid Go-framed body with a few bytes replaced, inserted or cut: framing faults of every kind. */
const mutatedBody = fc
  .array(fc.tuple(fc.nat({ max: VALID.body.length }), fc.oneof(fc.constant('cut'), fc.uint8Array({ minLength: 1, maxLength: 6 }))), { minLength: 1, maxLength: 4 })
  .map((edits) => {
    let body = Buffer.from(VALID.body);
    for (const [at, edit] of edits) {
      const where = Math.min(at, body.length);
      body = edit === 'cut' ? body.subarray(0, where) : Buffer.concat([body.subarray(0, where), Buffer.from(edit), body.subarray(where + edit.length)]);
    }
    return body;
  });

describe('the Document service under random input', () => {
  it('answers mutated multipart creates and updates with no 5xx', async () => {
    const created = await rawRequest(`${server.docsUrl()}/documents`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': VALID.contentType }, body: VALID.body });
    const id = (JSON.parse(created.body.toString()) as { id: string }).id;
    await fc.assert(
      fc.asyncProperty(mutatedBody, fc.boolean(), async (body, patch) => {
        const url = patch ? `${server.docsUrl()}/documents/${id}?optimistic-locking-version=1` : `${server.docsUrl()}/documents`;
        expectHandled(await rawRequest(url, { method: patch ? 'PATCH' : 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': VALID.contentType }, body }));
      }),
      { numRuns: 150 },
    );
  });

  it('answers random filters, sorts, page keys and sizes with no 5xx', async () => {
    const piece = fc.oneof(
      fc.constantFrom('name', 'type', 'version', 'id', 'owner', 'modificationInfo.createdTime', 'originAppId', 'nope', '=', '==', '!=', '<', '>=', 'contains', 'starts-with', 'in', 'exists', 'and', 'or', 'not', '(', ')', ',', "'x'", "'2024-01-01T00:00:00Z'", '3', "'", '\\'),
      fc.string({ maxLength: 6 }),
    );
    const filter = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(' '));
    await fc.assert(
      fc.asyncProperty(filter, fc.string({ maxLength: 12 }), fc.string({ maxLength: 8 }), fc.string({ maxLength: 16 }), async (f, sort, size, key) => {
        const query = new URLSearchParams({ filter: f, sort, 'page-size': size });
        if (key !== '') query.set('page-key', key);
        expectHandled(await rawRequest(`${server.docsUrl()}/documents?${query}`, { headers: { authorization: `Bearer ${token}` } }));
        expectHandled(await rawRequest(`${server.docsUrl()}/trash/documents?${query}`, { headers: { authorization: `Bearer ${token}` } }));
      }),
      { numRuns: 200 },
    );
  });

  it('answers random paths, methods and authorization headers below the prefix with no 5xx', async () => {
    const segment = fc.oneof(fc.constantFrom('documents', 'trash', 'metadata', 'content', 'restore', '..', '%2F', '%', 'x'.repeat(120)), fc.string({ maxLength: 10 }).map(encodeURIComponent));
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 4 }), fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'), fc.oneof(fc.constant(`Bearer ${token}`), fc.string({ maxLength: 30 })), async (segments, method, authorization) => {
        const response = await rawRequest(`${server.docsUrl()}/${segments.join('/')}`, { method, headers: { authorization: authorization.replace(/[^\x20-\x7e]/g, '') } });
        expect(response.status).toBeLessThan(500);
        if (method !== 'HEAD') expectHandled(response);
      }),
      { numRuns: 200 },
    );
  });
});
