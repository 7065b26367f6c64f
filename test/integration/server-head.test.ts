import { mkdir, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { api, dashboardsUrl, expectEnvelope, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

const INSTALLER = '/api/v1/deployment/installer/agent/unix/default/latest';
const ID = '7e1a0000-aaaa-4bbb-8ccc-000000000001';
/** Headers that differ between any two responses, whatever the method. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'keep-alive', 'connection']);

const headersOf = (response: { headers: Headers }): Record<string, string> =>
  Object.fromEntries([...response.headers].filter(([name]) => !PER_RESPONSE.has(name)));

/** Everything the server writes for one request sent byte for byte on a fresh connection, until it closes. */
function onTheWire(port: number, request: string): Promise<{ head: string; rest: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const end = raw.indexOf('\r\n\r\n');
      resolve({ head: raw.slice(0, end), rest: raw.slice(end + 4) });
    });
    socket.end(request);
  });
}

describe('HEAD on GET routes (RFC 9110: GET without the body)', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'InstallerDownload'] });
    token = server.token;
    await api(dashboardsUrl(server, `/${ID}`), { method: 'PUT', token, body: minimalDashboard('headed') });
  });
  afterAll(async () => server.close());

  it.each([
    ['a dashboard', `/api/config/v1/dashboards/${ID}`],
    ['the dashboard list', '/api/config/v1/dashboards?owner=tester'],
    ['the installer script', `${INSTALLER}?arch=x86`],
    ['the installer metainfo', `${INSTALLER}/metainfo`],
  ])('answers HEAD on %s with the status and headers of GET, Content-Length included, and no body', async (_what, path) => {
    const get = await api(`${server.url}${path}`, { token });
    const head = await api(`${server.url}${path}`, { method: 'HEAD', token });
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(headersOf(head)).toEqual(headersOf(get));
    expect(Number(head.headers.get('content-length'))).toBe(Buffer.byteLength(get.text));
  });

  it('sends no body bytes on the wire for HEAD', async () => {
    const request = `HEAD /e/local/api/config/v1/dashboards/${ID} HTTP/1.1\r\nHost: x\r\nAuthorization: Api-Token ${token}\r\nConnection: close\r\n\r\n`;
    const { head, rest } = await onTheWire(server.server.port, request);
    expect(head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(head).toMatch(/\r\ncontent-length: [1-9]\d*\r\n/i);
    expect(rest).toBe('');
  });

  it('answers HEAD on the installer with its ETag, 304 for a matching If-None-Match, and for the operator file too', async () => {
    const etag = (await api(`${server.url}${INSTALLER}`, { method: 'HEAD', token })).headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const cached = await api(`${server.url}${INSTALLER}`, { method: 'HEAD', token, headers: { 'if-none-match': etag! } });
    expect(cached.status).toBe(304);
    const { installerFile } = dataDirLayout(server.dataDir);
    await mkdir(dirname(installerFile), { recursive: true });
    await writeFile(installerFile, '#!/bin/sh\necho operator\n');
    try {
      const get = await api(`${server.url}${INSTALLER}`, { token });
      const head = await api(`${server.url}${INSTALLER}`, { method: 'HEAD', token });
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(headersOf(head)).toEqual(headersOf(get));
      expect(head.headers.get('content-length')).toBe('24');
    } finally {
      await rm(installerFile);
    }
  });

  it('answers HEAD with the error status GET would give, and the envelope length, without a body', async () => {
    const missing = dashboardsUrl(server, '/7e1a0000-aaaa-4bbb-8ccc-00000000ffff');
    const get = await api(missing, { token });
    const head = await api(missing, { method: 'HEAD', token });
    expectEnvelope(get, 404);
    expect(head.status).toBe(404);
    expect(head.text).toBe('');
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.text)));
    expect((await api(dashboardsUrl(server), { method: 'HEAD' })).status).toBe(401);
    expect((await api(dashboardsUrl(server), { method: 'HEAD', token: server.tokenFor(['WriteConfig']) })).status).toBe(403);
  });

  it('answers HEAD where no GET exists with 405 and an Allow header without HEAD', async () => {
    const head = await api(dashboardsUrl(server, `/${ID}/validator`), { method: 'HEAD', token });
    expect(head.status).toBe(405);
    expect(head.headers.get('allow')).toBe('POST');
  });

  it('lists HEAD in Allow wherever GET is allowed', async () => {
    const response = await api(dashboardsUrl(server), { method: 'PATCH', token });
    expectEnvelope(response, 405, 'Method not allowed here; allowed: GET, HEAD, POST.');
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
  });
});
