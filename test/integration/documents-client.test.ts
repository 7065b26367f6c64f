import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../src/lib/clock.js';
import { createDocumentsClient, type DocumentsClient } from '../../src/client/documents-api.js';
import { ApiError } from '../../src/client/errors.js';
import { bearerSource, platformCredentialFromEnv, PlatformAuthError } from '../../src/client/platform-auth.js';
import { classicUrlOf, platformUrlFromEnv, platformUrlOf } from '../../src/lib/platform-url.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { captureLog } from '../helpers/log-capture.js';
import { startDocumentServer, type DocumentServer } from '../helpers/documents.js';

let server: DocumentServer;
let client: DocumentsClient;
let token = '';

beforeAll(async () => {
  server = await startDocumentServer();
  token = await server.platformToken({ subject: 'ci' });
  client = createDocumentsClient({ platformUrl: server.baseUrl, credential: { kind: 'platform-token', token } });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

const json = (value: unknown) => ({ bytes: JSON.stringify(value), contentType: 'application/json' });

describe('documents client against the embedded server', () => {
  it('creates, reads (multipart, metadata, content), updates with the version, and a stale version is a 409 tried once', async () => {
    const created = await client.create({ name: 'Client doc', type: 'dashboard', id: 'client-doc', isPrivate: false, content: json({ version: 21, tiles: {} }) });
    expect(created).toMatchObject({ id: 'client-doc', version: 1, isPrivate: false, owner: 'ci' });
    const got = await client.get('client-doc');
    expect(got.metadata).toEqual(created);
    expect([got.content.toString(), got.contentType]).toEqual(['{"version":21,"tiles":{}}', 'application/json']);
    expect(await client.content('client-doc')).toEqual({ bytes: Buffer.from('{"version":21,"tiles":{}}'), contentType: 'application/json' });

    const updated = await client.update('client-doc', 1, { name: 'Renamed', content: { bytes: Buffer.from([1, 2, 3]), contentType: 'application/octet-stream' } });
    expect(updated).toMatchObject({ name: 'Renamed', version: 2 });
    const stale = await client.update('client-doc', 1, { name: 'Stale' }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ApiError);
    expect(stale).toMatchObject({ status: 409, attempts: 1 });
    expect((await client.metadata('client-doc')).name).toBe('Renamed');
    expect((await client.replaceContent('client-doc', 2, json({ v: 3 }))).version).toBe(3);
  });

  it('lists every page of a filtered listing', async () => {
    for (let i = 0; i < 5; i++) await client.create({ name: `Paged ${i}`, type: 'notebook', id: `paged-${i}`, content: json({ version: '5', sections: [] }) });
    const listed = await client.list({ filter: "type = 'notebook' and id starts-with 'paged-'", pageSize: 2, sort: '-name' });
    expect(listed.map((d) => d.id)).toEqual(['paged-4', 'paged-3', 'paged-2', 'paged-1', 'paged-0']);
  });

  it('keeps add-fields on every page, not only the first (an owned document on page two must show its mark)', async () => {
    for (let i = 0; i < 3; i++) await client.create({ name: `Described ${i}`, description: `about ${i}`, type: 'dashboard', id: `described-${i}`, content: json({}) });
    const listed = await client.list({ filter: "id starts-with 'described-'", pageSize: 1, addFields: ['description'] });
    expect(listed.map((d) => d.description)).toEqual(['about 0', 'about 1', 'about 2']);
  });

  it('deletes to the trash, lists and restores from it, and purges', async () => {
    await client.create({ name: 'Trash me', type: 'dashboard', id: 'client-trash', content: json({}) });
    await client.delete('client-trash', 1);
    expect((await client.metadata('client-trash').catch((error: unknown) => error)) as ApiError).toMatchObject({ status: 404 });
    expect((await client.trash.list()).map((d) => d.id)).toContain('client-trash');
    expect(await client.trash.get('client-trash')).toMatchObject({ id: 'client-trash', deletionInfo: { deletedBy: 'ci' } });
    await client.trash.restore('client-trash');
    expect((await client.metadata('client-trash')).version).toBe(1);
    await client.delete('client-trash', 1);
    await client.trash.purge('client-trash');
    expect((await client.trash.get('client-trash').catch((error: unknown) => error)) as ApiError).toMatchObject({ status: 404 });
  });

  it('an OAuth client from DT_CLIENT_ID/DT_CLIENT_SECRET/DT_OAUTH_TOKEN_URL gets a token, refreshed before it expires', async () => {
    const oauth = await server.oauthClient({ subject: 'svc', scopes: ['document:documents:read', 'document:documents:write'] });
    let now = Date.now();
    const clock: Clock = { ...systemClock, now: () => now };
    const credential = platformCredentialFromEnv({ DT_CLIENT_ID: oauth.clientId, DT_CLIENT_SECRET: oauth.secret, DT_OAUTH_TOKEN_URL: `${server.baseUrl}/sso/oauth2/token`, DT_OAUTH_SCOPES: 'document:documents:read document:documents:write' });
    if (credential?.kind !== 'oauth-client') throw new Error('expected an OAuth client');
    const source = bearerSource(credential, { clock });
    const first = await source.token();
    expect(await source.token()).toBe(first);
    now += 269_000;
    expect(await source.token()).toBe(first);
    now += 2_000;
    const second = await source.token();
    expect(second).not.toBe(first);

    const viaOauth = createDocumentsClient({ platformUrl: server.baseUrl, credential: source, clock });
    expect((await viaOauth.create({ name: 'By a service', type: 'dashboard', content: json({}) })).owner).toBe('svc');
    await viaOauth.close();
  });

  it('a half-set OAuth client is an error naming what is missing; a platform token wins', () => {
    expect(() => platformCredentialFromEnv({ DT_CLIENT_ID: 'dt0s02.X' })).toThrow(PlatformAuthError);
    expect(() => platformCredentialFromEnv({ DT_CLIENT_ID: 'dt0s02.X' })).toThrow(/DT_CLIENT_SECRET is not set/);
    expect(platformCredentialFromEnv({ DT_PLATFORM_TOKEN: 'dt0s16.A.B', DT_CLIENT_ID: 'x' })).toEqual({ kind: 'platform-token', token: 'dt0s16.A.B' });
    expect(platformCredentialFromEnv({})).toBeUndefined();
    expect(platformCredentialFromEnv({ DT_CLIENT_ID: 'id', DT_CLIENT_SECRET: 'secret' })).toMatchObject({ tokenUrl: 'https://sso.dynatrace.com/sso/oauth2/token', scopes: [] });
  });
});

describe('documents client: retries and rate limits as the config client', () => {
  let fault: FaultServer;
  beforeAll(async () => {
    fault = await startFaultServer({ upstream: server.baseUrl });
  });
  afterAll(() => fault.close());

  it('retries 429 (honouring Retry-After) and 503, never a 409; the token appears in no log line', async () => {
    const { lines, log } = captureLog('debug');
    const retrying = createDocumentsClient({ platformUrl: fault.url, credential: { kind: 'platform-token', token }, log, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    await retrying.create({ name: 'Behind faults', type: 'dashboard', id: 'faulty', content: json({}) });
    fault.script(
      { status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 429, message: 'Too Many Requests' } }, match: { method: 'GET' } },
      { status: 503, body: { error: { code: 503, message: 'busy' } }, match: { method: 'GET' } },
    );
    expect((await retrying.metadata('faulty')).id).toBe('faulty');
    expect(fault.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/faulty/metadata'))).toHaveLength(3);

    fault.script({ status: 409, body: { error: { code: 409, message: 'Conflict', details: { errorRef: 'x' } } }, match: { method: 'PATCH' } });
    const before = fault.requests.length;
    expect(await retrying.update('faulty', 1, { name: 'x' }).catch((error: unknown) => error)).toMatchObject({ status: 409, attempts: 1 });
    expect(fault.requests.length - before).toBe(1);

    // A write is retried only where the server cannot have acted on it (429).
    fault.script({ status: 429, headers: { 'retry-after': '0' }, body: { error: { code: 429, message: 'slow down' } }, match: { method: 'PATCH' } });
    expect((await retrying.update('faulty', 1, { name: 'Renamed' })).version).toBe(2);
    fault.script({ status: 502, body: { error: { code: 502, message: 'bad gateway' } }, match: { method: 'PATCH' } });
    expect(await retrying.update('faulty', 2, { name: 'Again' }).catch((error: unknown) => error)).toMatchObject({ status: 502, attempts: 1 });

    expect(lines.length).toBeGreaterThan(0);
    expect(JSON.stringify(lines)).not.toContain(token);
    await retrying.close();
  });
});

describe('platform and classic URLs', () => {
  it.each([
    ['https://abc12345.live.dynatrace.com', 'https://abc12345.apps.dynatrace.com'],
    ['https://abc12345.live.dynatrace.com/', 'https://abc12345.apps.dynatrace.com'],
    ['https://abc12345.sprint.dynatracelabs.com', 'https://abc12345.sprint.apps.dynatracelabs.com'],
    ['https://abc12345.dev.dynatracelabs.com', 'https://abc12345.dev.apps.dynatracelabs.com'],
    ['http://127.0.0.1:8080/e/dev', 'http://127.0.0.1:8080/e/dev'],
    ['http://localhost:8080/', 'http://localhost:8080'],
  ])('%s ↔ %s', (classic, platform) => {
    expect(platformUrlOf(classic)).toBe(platform);
    expect(classicUrlOf(platform)).toBe(classic.startsWith('https') ? classic.replace(/\/$/, '') : platform);
  });

  it.each(['https://managed.example.com/e/abc', 'https://dynatrace.example.com', 'http://abc.live.dynatrace.com', 'not a url'])('derives nothing from %s', (url) => {
    expect(platformUrlOf(url)).toBeUndefined();
    expect(classicUrlOf(url)).toBeUndefined();
  });

  it('DT_PLATFORM_URL wins; else the platform URL is derived from DT_ENV_URL where certain', () => {
    expect(platformUrlFromEnv({ DT_PLATFORM_URL: 'https://x.apps.dynatrace.com/', DT_ENV_URL: 'https://y.live.dynatrace.com' })).toBe('https://x.apps.dynatrace.com');
    expect(platformUrlFromEnv({ DT_ENV_URL: 'https://y.live.dynatrace.com' })).toBe('https://y.apps.dynatrace.com');
    expect(platformUrlFromEnv({ DT_ENV_URL: 'https://managed.example.com/e/abc' })).toBeUndefined();
    expect(platformUrlFromEnv({})).toBeUndefined();
  });
});
