import { afterEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/api-client.js';
import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';
import { captureLog } from '../helpers/log-capture.js';
import { api, dashboardsUrl, expectEnvelope, minimalDashboard, startTestServer, type TestServer } from '../helpers/server.js';

const ID = '6a98d7bc-abb9-44f8-ae6a-73e68e71812a';

/**
 * The real file system, except that opening a file to write it fails with `code` while `failures` lasts (-1: until
 * told otherwise): the seam every durable write goes through, standing in for a full disk or a descriptor table at
 * its limit where a test cannot make either real.
 */
function exhaustibleFs(): FsLayer & { fail(code: 'ENOSPC' | 'EMFILE', times?: number): void; recover(): void } {
  let code = '';
  let failures = 0;
  const fault = (syscall: string, path: string): Error | undefined => {
    if (failures === 0) return undefined;
    failures -= 1;
    const message = code === 'ENOSPC' ? 'no space left on device' : 'too many open files';
    return Object.assign(new Error(`${code}: ${message}, ${syscall} '${path}'`), { code, syscall, path });
  };
  return {
    ...nodeFs,
    // Writes fail where the disk refuses them: opening a file, or appending to one already open (the journal).
    async open(path, flags, mode) {
      if (flags === 'r') return nodeFs.open(path, flags, mode);
      const opening = fault('open', path);
      if (opening) throw opening;
      const handle = await nodeFs.open(path, flags, mode);
      return {
        ...handle,
        write: (data) => {
          const writing = fault('write', path);
          return writing ? Promise.reject(writing) : handle.write(data);
        },
        sync: () => handle.sync(),
        close: () => handle.close(),
      };
    },
    fail(next, times = -1) {
      code = next;
      failures = times;
    },
    recover() {
      failures = 0;
    },
  };
}

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('a store that runs out of disk space or file descriptors', () => {
  it('answers writes with 503, Retry-After and an envelope naming the disk, logs one line for many requests, and serves reads', async () => {
    const fs = exhaustibleFs();
    const { lines, log } = captureLog();
    server = await startTestServer({ fs, log });
    fs.fail('ENOSPC');
    for (let i = 0; i < 20; i++) {
      const response = await api(dashboardsUrl(server, `/${ID}`), { method: 'PUT', token: server.token, body: minimalDashboard() });
      expectEnvelope(response, 503, 'The server is out of disk space (ENOSPC) and could not store this; retry after 5 s.');
      expect(response.headers.get('retry-after')).toBe('5');
    }
    const created = await api(dashboardsUrl(server), { method: 'POST', token: server.token, body: minimalDashboard() });
    expectEnvelope(created, 503, /out of disk space \(ENOSPC\)/);
    expect((await api(dashboardsUrl(server), { token: server.token })).status).toBe(200);
    const warnings = lines.filter((l) => l['level'] === 40 && String(l['msg']).startsWith('out of disk space'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ resource: 'disk space', code: 'ENOSPC' });
    expect(lines.filter((l) => (l['level'] as number) >= 50)).toEqual([]);
    fs.recover();
    expect((await api(dashboardsUrl(server, `/${ID}`), { method: 'PUT', token: server.token, body: minimalDashboard() })).status).toBe(201);
  });

  it('names file descriptors for EMFILE, with a shorter Retry-After', async () => {
    const fs = exhaustibleFs();
    server = await startTestServer({ fs });
    fs.fail('EMFILE');
    const response = await api(dashboardsUrl(server, `/${ID}`), { method: 'PUT', token: server.token, body: minimalDashboard() });
    expectEnvelope(response, 503, 'The server is out of file descriptors (EMFILE) and could not store this; retry after 1 s.');
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('is retried by the client like any 503: the write lands once descriptors are free again', async () => {
    const fs = exhaustibleFs();
    server = await startTestServer({ fs });
    fs.fail('EMFILE', 2);
    const client = createApiClient({ baseUrl: server.url, token: server.token, retry: { baseDelayMs: 10, maxDelayMs: 50, maxAttempts: 5, deadlineMs: 30_000 } });
    try {
      expect(await client.dashboards.put(ID, minimalDashboard('after a retry'))).toBe('created');
      expect((await client.dashboards.get(ID))?.dashboardMetadata.name).toBe('after a retry');
    } finally {
      await client.close();
    }
  });
});
