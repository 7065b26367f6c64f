import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/lib/clock.js';
import { PlatformErrorEnvelope } from '../../../../src/schema/documents.js';
import { DEFAULT_ENVIRONMENT } from '../../../../src/schema/ids.js';
import { dataDirLayout } from '../../../../src/server/data-dir.js';
import type { DocumentApi } from '../../../../src/server/documents/document-api.js';
import { lazyDocumentApi } from '../../../../src/server/documents/lazy-document-api.js';
import { openEnvironments, type EnvironmentRegistry } from '../../../../src/server/environments.js';
import { captureLog } from '../../../helpers/log-capture.js';
import { tempDirPerTest } from '../../../helpers/scratch.js';

const DOCS = '/platform/document/v1/documents';

describe('the Document service loaded on first use', () => {
  let dir = '';
  tempDirPerTest('dashcd-lazy-docs-', (created) => (dir = created));
  const opened: { environments?: EnvironmentRegistry; api?: DocumentApi; server?: Server } = {};
  afterEach(async () => {
    if (opened.server) await new Promise((resolve) => opened.server?.close(resolve));
    await opened.api?.close();
    await opened.environments?.close();
    delete opened.server;
    delete opened.api;
    delete opened.environments;
  });

  /** The real service behind a counting loader (or `load` when given), and a node:http server that routes to it. */
  async function start(load?: () => Promise<typeof import('../../../../src/server/documents/document-api.js')>) {
    const log = captureLog();
    const layout = dataDirLayout(dir);
    const environments = await openEnvironments({ layout, log: log.log });
    opened.environments = environments;
    let loads = 0;
    const counted = load ?? (() => {
      loads += 1;
      return import('../../../../src/server/documents/document-api.js');
    });
    const api = lazyDocumentApi({ environments, layout, clock: systemClock, log: log.log, bodyLimit: 1024 * 1024 }, counted);
    opened.api = api;
    const server = createServer((req, res) => api.listener(req, res));
    opened.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const get = (path: string, token: string): Promise<{ status: number; body: string }> =>
      new Promise((resolve, reject) => {
        request({ host: '127.0.0.1', port, path, headers: { authorization: `Bearer ${token}` } }, (res) => {
          let body = '';
          res.setEncoding('utf8').on('data', (chunk: string) => (body += chunk)).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        }).on('error', reject).end();
      });
    /** A POST whose body never finishes arriving: the status and the connection header it is answered with. */
    const unfinishedPost = (path: string): Promise<{ status: number; connection: string | undefined }> =>
      new Promise((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { 'content-length': '100', 'content-type': 'application/json' } }, (res) => {
          resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
          res.resume();
          req.destroy();
        });
        req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : reject(error)));
        req.write('{"name"');
      });
    return { api, get, unfinishedPost, loads: () => loads, log };
  }

  it('loads nothing until a platform request or token needs it, then loads once', async () => {
    const { api, get, loads } = await start();
    expect(api.handles(DOCS)).toBe(true);
    expect(api.handles('/e/prod/sso/oauth2/token')).toBe(true);
    expect(api.handles('/api/config/v1/dashboards')).toBe(false);
    await api.flushed();
    expect(loads()).toBe(0);

    const token = await api.addEphemeralToken(DEFAULT_ENVIRONMENT, ['document:documents:read'], 'reader');
    expect(loads()).toBe(1);
    const answers = await Promise.all([get(DOCS, token), get(DOCS, token), get(DOCS, 'not-a-token')]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 401]);
    expect(JSON.parse(answers[0]?.body ?? '')).toMatchObject({ documents: [] });
    expect(loads()).toBe(1);
  });

  it('answers requests that arrive while it loads, each once it has loaded', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { get } = await start(async () => {
      await gate;
      return import('../../../../src/server/documents/document-api.js');
    });
    const pending = Promise.all([get(DOCS, 'unknown'), get(`${DOCS}/x`, 'unknown')]);
    release();
    const answers = await pending;
    expect(answers.map((a) => a.status)).toEqual([401, 401]);
    for (const answer of answers) expect(PlatformErrorEnvelope.safeParse(JSON.parse(answer.body)).success).toBe(true);
  });

  it('answers 500 in the platform envelope, logged with its errorRef, when the service cannot be loaded', async () => {
    const { get, log } = await start(() => Promise.reject(new Error('module missing')));
    const answer = await get(DOCS, 'any');
    expect(answer.status).toBe(500);
    const envelope = PlatformErrorEnvelope.parse(JSON.parse(answer.body));
    const logged = log.lines.find((line) => line['msg'] === 'the Document service could not be loaded');
    expect(typeof logged?.['errorRef']).toBe('string');
    expect(envelope.error.details?.errorRef).toBe(logged?.['errorRef']);
    expect(envelope.error.message).toMatch(/internal server error.*errorRef/i);
  });

  it('closes the connection after that answer when the request body was not read to its end', async () => {
    const { unfinishedPost } = await start(() => Promise.reject(new Error('module missing')));
    expect(await unfinishedPost(DOCS)).toEqual({ status: 500, connection: 'close' });
  });

  it('closes the service it loaded: a request after close is told the server is shutting down', async () => {
    const { api, get } = await start();
    const token = await api.addEphemeralToken(DEFAULT_ENVIRONMENT, ['document:documents:read'], 'reader');
    expect((await get(DOCS, token)).status).toBe(200);
    await api.flushed();
    await api.close();
    const after = await get(DOCS, token);
    expect(after.status).toBe(503);
    expect(PlatformErrorEnvelope.parse(JSON.parse(after.body)).error.message).toMatch(/shutting down/);
  });
});
