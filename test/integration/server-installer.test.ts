import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { dataDirLayout } from '../../src/server/data-dir.js';
import { api, expectEnvelope, startTestServer, type TestServer } from '../helpers/server.js';

const PATH = '/api/v1/deployment/installer/agent/unix/default/latest';

describe('agent installer download', () => {
  let server: TestServer;
  let token: string;
  const logLines: string[] = [];
  beforeAll(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    });
    server = await startTestServer({ scopes: ['InstallerDownload'], log: createLogger({ level: 'debug', destination }) });
    token = server.token;
  });
  afterAll(async () => server.close());

  it('serves the built-in harmless script as octet-stream with an ETag, token in the header', async () => {
    const response = await api(`${server.url}${PATH}?arch=x86&flavor=default`, { token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(response.text.split('\n')[0]).toBe('#!/bin/sh');
    expect(response.text).toContain('would install OneAgent 1.0.0.20260101-000000');
    expect(response.text).toContain('arch=x86, flavor=default');
  });

  it.each(['Api-Token', 'api-token'])('accepts the token in the %s query parameter', async (name) => {
    const response = await api(`${server.url}${PATH}?arch=arm&flavor=musl&${name}=${token}`);
    expect(response.status).toBe(200);
    expect(response.text).toContain('arch=arm, flavor=musl');
  });

  it('is a 401 with no token in header or query, and with an unknown query token', async () => {
    expectEnvelope(await api(`${server.url}${PATH}?arch=x86`), 401, 'Missing authorization parameter.');
    expectEnvelope(await api(`${server.url}${PATH}?arch=x86&Api-Token=dt0c01.nope`), 401, 'Token Authentication failed');
  });

  it('answers 304 without a body for a matching If-None-Match, 200 otherwise', async () => {
    const first = await api(`${server.url}${PATH}?arch=x86`, { token });
    const etag = first.headers.get('etag')!;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await api(`${server.url}${PATH}?arch=x86`, { token, headers: { 'if-none-match': header } });
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
      expect(cached.headers.get('etag')).toBe(etag);
    }
    const stale = await api(`${server.url}${PATH}?arch=x86`, { token, headers: { 'if-none-match': '"stale"' } });
    expect(stale.status).toBe(200);
  });

  it('defaults arch to x86 and flavor to default when omitted', async () => {
    const response = await api(`${server.url}${PATH}`, { token });
    expect(response.status).toBe(200);
    expect(response.text).toContain('arch=x86, flavor=default');
  });

  it('rejects an unknown arch and flavor in one 400 with QUERY violations', async () => {
    const envelope = expectEnvelope(await api(`${server.url}${PATH}?arch=mips&flavor=alpine`, { token }), 400, 'Constraints violated.');
    expect(envelope.error.constraintViolations).toEqual([
      { path: 'arch', message: 'Must be one of: all, x86, ppc, ppcle, sparc, arm, s390.', parameterLocation: 'QUERY', location: null },
      { path: 'flavor', message: 'Must be one of: default, multidistro, musl.', parameterLocation: 'QUERY', location: null },
    ]);
  });

  it('serves the operator file from the data dir instead, with its own ETag', async () => {
    const builtIn = await api(`${server.url}${PATH}?arch=x86`, { token });
    const { installerFile } = dataDirLayout(server.dataDir);
    await mkdir(join(installerFile, '..'), { recursive: true });
    await writeFile(installerFile, '#!/bin/sh\necho operator installer\n');
    try {
      const response = await api(`${server.url}${PATH}?arch=x86`, { token });
      expect(response.text).toBe('#!/bin/sh\necho operator installer\n');
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect(response.headers.get('etag')).not.toBe(builtIn.headers.get('etag'));
      const cached = await api(`${server.url}${PATH}?arch=x86`, { token, headers: { 'if-none-match': response.headers.get('etag')! } });
      expect(cached.status).toBe(304);
      await writeFile(installerFile, '#!/bin/sh\necho operator installer v2\n');
      const changed = await api(`${server.url}${PATH}?arch=x86`, { token, headers: { 'if-none-match': response.headers.get('etag')! } });
      expect(changed.status).toBe(200);
      expect(changed.text).toContain('v2');
    } finally {
      await rm(installerFile);
    }
  });

  it('metainfo answers the latest agent version', async () => {
    const response = await api(`${server.url}${PATH}/metainfo`, { token });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ latestAgentVersion: '1.0.0.20260101-000000' });
  });

  it('never writes a query-string token into the log', async () => {
    await api(`${server.url}${PATH}?arch=bogus&Api-Token=${token}`);
    await api(`${server.url}${PATH}/metainfo?Api-Token=${token}`);
    const all = logLines.join('');
    expect(all).toContain('/metainfo?Api-Token=[REDACTED]');
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.split('.')[2]!);
  });

  it('never writes a percent-encoded query token into the log, however its name and value are escaped', async () => {
    const everyByte = (text: string, hex: (code: number) => string): string => [...text].map((c) => `%${hex(c.charCodeAt(0))}`).join('');
    const upper = (code: number): string => code.toString(16).toUpperCase();
    const lower = (code: number): string => code.toString(16);
    const urls = [
      `${PATH}?arch=x86&Api%2DToken=${token.replaceAll('.', '%2E')}`,
      `${PATH}?arch=x86&api%2dtoken=${token.replaceAll('.', '%2e')}`,
      `${PATH}?arch=x86&%41pi-%54oken=${token}`,
      `${PATH}?arch=x86&${everyByte('api-token', lower)}=${everyByte(token, upper)}`,
    ];
    logLines.length = 0;
    for (const url of urls) expect((await api(`${server.url}${url}`)).status).toBe(200);
    const all = logLines.join('');
    expect(all.match(/"msg":"request"/g)).toHaveLength(urls.length);
    const decoded = all.replace(/%[0-9a-f]{2}/gi, (escape) => String.fromCharCode(parseInt(escape.slice(1), 16)));
    for (const part of token.split('.').slice(1)) {
      expect(decoded).not.toContain(part);
      expect(decoded.toLowerCase()).not.toContain(part.toLowerCase());
    }
  });
});
