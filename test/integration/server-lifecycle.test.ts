import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import { serveCommand } from '../../src/cli/commands/serve.js';
import type { CommandIo } from '../../src/cli/command.js';
import { nodeFs, type FsLayer } from '../../src/lib/fs-layer.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { openTokenStore } from '../../src/server/auth/token-store.js';
import { startEmbeddedServer, startServer } from '../../src/server/create-server.js';
import { BodyParts } from '../../src/server/http/respond.js';
import type { RouteFactory } from '../../src/server/route-factory.js';
import { readOwner } from '../../src/server/data-dir.js';
import { api, expectEnvelope, minimalDashboard } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { tempDirPerTest } from '../helpers/scratch.js';

function cliIo(dataDir: string, signal: AbortSignal): CommandIo & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  return { stdout, stderr, env: {}, cwd: dataDir, log: silentLogger(), signal, out: () => out, err: () => err };
}

/** How many events the feed of `env` holds, once the serve that owns `store` has published its URL and has some. */
async function simulatedEvents(store: string, env: string): Promise<number> {
  const owner = await waitFor(async () => ((await readOwner(store))?.url ? readOwner(store) : undefined));
  const session = await api(`${owner!.url}/_dashcd/admin/env/${env}/session`, { method: 'POST', headers: { authorization: `Bearer ${owner!.adminKey}` } });
  const { token } = session.json as { token: string };
  return waitFor(async () => {
    const page = (await api(`${owner!.url}/e/${env}/api/v1/events`, { token })).json as { totalEventCount: number };
    return page.totalEventCount > 0 ? page.totalEventCount : undefined;
  });
}

describe('server lifecycle', () => {
  let dataDir: string;
  tempDirPerTest('dashcd-lifecycle-', (created) => (dataDir = created));

  it('refuses a second server on the same data dir with DATA_DIR_LOCKED', async () => {
    const first = await startServer({ dataDir, log: silentLogger(), port: 0 });
    await expect(startServer({ dataDir, log: silentLogger(), port: 0 })).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED' });
    await first.close();
    const again = await startServer({ dataDir, log: silentLogger(), port: 0 });
    await again.close();
  });

  it('a server on an address the URL parser rewrites (::ffff:127.0.0.1) keeps its data dir: a second one is refused, and it answers at the URL it published', async () => {
    // Its owner.json counted as stale, since the own-listener rule took the URL for another host's: a second serve
    // took over the data dir and wrote beside the first.
    const first = await startServer({ dataDir, log: silentLogger(), host: '::ffff:127.0.0.1', port: 0 });
    try {
      expect(first.url).toBe(`http://[::ffff:127.0.0.1]:${first.port}`);
      expect(await readOwner(dataDir)).toMatchObject({ url: first.url });
      await expect(startServer({ dataDir, log: silentLogger(), port: 0 })).rejects.toMatchObject({ code: 'DATA_DIR_LOCKED' });
      const owner = await readOwner(dataDir);
      const session = await api(`${owner!.url}/_dashcd/admin/env/local/session`, { method: 'POST', headers: { authorization: `Bearer ${owner!.adminKey}` } });
      expect(session.status).toBe(201);
    } finally {
      await first.close();
    }
  });

  it('dashcd serve on a port in use or a host that does not resolve exits 1 saying so, and leaves no data dir behind; a second serve on the same data dir and port names the first', async () => {
    const blocker = await startServer({ dataDir: join(dataDir, 'blocker'), log: silentLogger(), port: 0 });
    try {
      const io = cliIo(dataDir, new AbortController().signal);
      expect(await runCli([serveCommand], ['serve', '--port', String(blocker.port), '--data', 'fresh/data'], io)).toBe(1);
      expect(io.err()).toContain(`cannot listen on 127.0.0.1:${blocker.port} (EADDRINUSE)`);
      await expect(stat(join(dataDir, 'fresh'))).rejects.toMatchObject({ code: 'ENOENT' });
      // The same data dir too: what is in use is the data dir, whose owner says where it serves.
      const same = cliIo(dataDir, new AbortController().signal);
      expect(await runCli([serveCommand], ['serve', '--port', String(blocker.port), '--data', 'blocker'], same)).toBe(4);
      expect(same.err()).toContain(`serving ${blocker.url}`);
      // An address this machine does not have (TEST-NET-1; no name to resolve): one line, no stack, nothing created.
      const nowhere = cliIo(dataDir, new AbortController().signal);
      expect(await runCli([serveCommand], ['serve', '--host', '192.0.2.1', '--port', '0', '--data', 'fresh/data'], nowhere)).toBe(1);
      expect(nowhere.err()).toBe('dashcd serve: cannot listen on 192.0.2.1:0 (EADDRNOTAVAIL) — choose another --host/--port\n');
      await expect(stat(join(dataDir, 'fresh'))).rejects.toMatchObject({ code: 'ENOENT' });
      // A zoned address binds, but the URL it publishes is one no client takes: every command through it failed.
      const zoned = cliIo(dataDir, new AbortController().signal);
      expect(await runCli([serveCommand], ['serve', '--host', 'fe80::1%lo', '--port', '0', '--data', 'fresh/data'], zoned)).toBe(64);
      expect(zoned.err()).toBe("dashcd serve: --host fe80::1%lo: an address with a zone (%…) cannot be reached by URL — listen on another of the interface's addresses, or on :: (every address)\n");
      await expect(stat(join(dataDir, 'fresh'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await blocker.close();
    }
  });

  it('dashcd serve publishes its URL, a second serve exits 4 (data dir in use, as every command) with a clear message, and a signal stops the first', async () => {
    const controller = new AbortController();
    const io = cliIo(dataDir, controller.signal);
    const running = runCli([serveCommand], ['serve', '--port', '0', '--data', '.'], io);
    const owner = await waitFor(async () => ((await readOwner(dataDir))?.url ? readOwner(dataDir) : undefined));
    expect(io.out()).toContain(`dashcd serving ${owner!.url}/e/local`);

    const second = cliIo(dataDir, new AbortController().signal);
    expect(await runCli([serveCommand], ['serve', '--port', '0', '--data', '.'], second)).toBe(4);
    expect(second.err()).toContain(`is in use by dashcd pid ${process.pid} serving ${owner!.url}`);

    controller.abort(new Error('received SIGTERM'));
    expect(await running).toBe(0);
    expect(await readOwner(dataDir)).toBeUndefined();
  });

  it('dashcd serve --simulate-events serves a growing events feed', async () => {
    const controller = new AbortController();
    const running = runCli([serveCommand], ['serve', '--port', '0', '--data', '.', '--simulate-events'], cliIo(dataDir, controller.signal));
    try {
      expect(await simulatedEvents(dataDir, 'local')).toBeGreaterThan(0);
    } finally {
      controller.abort(new Error('received SIGINT'));
      expect(await running).toBe(0);
    }
  });

  it('dashcd serve --simulate-events in a project with environments simulates each embedded one (it simulated local alone, which no command there reads)', async () => {
    await writeFile(join(dataDir, 'dashcd.yaml'), 'environments:\n  dev:\n  prod:\n    target: https://prod.example.invalid\n    tokenEnv: PROD_TOKEN\n');
    await mkdir(join(dataDir, 'dashboards'));
    const store = join(dataDir, '.dashcd');
    const controller = new AbortController();
    // The project's own store, named with --data too (any --data turned the project's environments off).
    const running = runCli([serveCommand], ['serve', '--port', '0', '--data', '.dashcd', '--simulate-events'], cliIo(dataDir, controller.signal));
    try {
      // local's feed first: the simulators have started, so dev's session below cannot be what opens dev for them.
      expect(await simulatedEvents(store, 'local')).toBeGreaterThan(0);
      expect(await simulatedEvents(store, 'dev')).toBeGreaterThan(0);
      // A remote environment is not the embedded store's to simulate.
      await expect(stat(join(store, 'env', 'prod'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      controller.abort(new Error('received SIGINT'));
      expect(await running).toBe(0);
    }
    // A store named with --data is not the project's: the project's environments are not made in it.
    const elsewhere = new AbortController();
    const other = runCli([serveCommand], ['serve', '--port', '0', '--data', 'other', '--simulate-events'], cliIo(dataDir, elsewhere.signal));
    try {
      expect(await simulatedEvents(join(dataDir, 'other'), 'local')).toBeGreaterThan(0);
      expect(await readdir(join(dataDir, 'other', 'env'))).toEqual(['local']);
    } finally {
      elsewhere.abort(new Error('received SIGINT'));
      expect(await other).toBe(0);
    }
  });

  it('rejects a bad --port as a usage error', async () => {
    const io = cliIo(dataDir, new AbortController().signal);
    expect(await runCli([serveCommand], ['serve', '--port', 'http', '--data', '.'], io)).toBe(64);
    expect(io.err()).toContain("--port must be a number from 0 to 65535, not 'http'");
  });

  it('rejects a --cache-mb that is not a non-negative integer as a usage error, before taking the data dir', async () => {
    const io = cliIo(dataDir, new AbortController().signal);
    expect(await runCli([serveCommand], ['serve', '--port', '0', '--data', '.', '--cache-mb', 'lots'], io)).toBe(64);
    expect(io.err()).toContain("--cache-mb must be an integer of at least 0, got 'lots'");
  });

  it('close() lets a write that is in flight finish and acknowledges it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let writeStarted!: () => void;
    const started = new Promise<void>((resolve) => (writeStarted = resolve));
    const slowFs: FsLayer = {
      ...nodeFs,
      open: async (path, flags, mode) => {
        const handle = await nodeFs.open(path, flags, mode);
        if (flags !== 'wx') return handle;
        writeStarted();
        return { ...handle, write: (d) => handle.write(d), close: () => handle.close(), sync: async () => { await gate; await handle.sync(); } };
      },
    };
    const server = await startServer({ dataDir, log: silentLogger(), port: 0, fs: slowFs });
    const token = server.environments.get(DEFAULT_ENVIRONMENT)!.tokens.addEphemeral(['WriteConfig']);
    const id = '33333333-aaaa-4bbb-8ccc-000000000001';
    const put = api(`${server.envUrl()}/api/config/v1/dashboards/${id}`, { method: 'PUT', token, body: minimalDashboard('inflight') });
    await started;
    const closing = server.close();
    setTimeout(release, 200);
    expect((await put).status).toBe(201);
    await closing;
    const file = JSON.parse(await readFile(join(dataDir, 'env', 'local', 'dashboards', `${id}.json`), 'utf8')) as { id: string };
    expect(file.id).toBe(id);
    await expect(api(`${server.envUrl()}/api/config/v1/dashboards`, { token })).rejects.toThrow();
  });

  it('serves an environment that appeared on disk while running (token created beside it)', async () => {
    const server = await startServer({ dataDir, log: silentLogger(), port: 0 });
    try {
      const url = `${server.url}/e/late/api/config/v1/dashboards`;
      expectEnvelope(await api(url, { token: 'dt0c01.x' }), 404, 'Environment late not found');
      await mkdir(join(dataDir, 'env', 'late'), { recursive: true });
      const tokens = await openTokenStore({ file: join(dataDir, 'env', 'late', 'tokens.json') });
      const { token } = await tokens.create({ name: 'late', scopes: ['ReadConfig'] });
      const response = await api(url, { token });
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ dashboards: [] });
      expect((await stat(join(dataDir, 'env', 'late', 'dashboards'))).isDirectory()).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('closes the connection when a response fails after its headers went out, instead of leaving the client waiting, and goes on serving', async () => {
    // A body piece that is not bytes: the headers are written, then the write throws.
    const halfway: RouteFactory = () => [
      { method: 'GET', path: '/halfway', scope: 'ReadConfig', handle: () => ({ status: 200, body: new BodyParts([Buffer.from('{'), 42 as unknown as Uint8Array]) }) },
    ];
    const server = await startServer({ dataDir, log: silentLogger(), port: 0, routeFactories: [halfway] });
    try {
      const token = server.environments.get(DEFAULT_ENVIRONMENT)!.tokens.addEphemeral(['ReadConfig']);
      const outcome = await new Promise<string>((resolve) => {
        const req = httpGet(`${server.envUrl()}/halfway`, { headers: { authorization: `Api-Token ${token}` } }, (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve('ended'));
          res.on('error', () => resolve('closed'));
          res.on('aborted', () => resolve('closed'));
        });
        req.on('error', () => resolve('closed'));
        // Left open, the answer would hang: the test would time out rather than see 'closed'.
      });
      expect(outcome).toBe('closed');
      expect((await api(`${server.envUrl()}/api/config/v1/dashboards`, { token })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('answers an unexpected exception with a 500 envelope whose x-request-id matches the logged error', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const boom: RouteFactory = () => [
      { method: 'GET', path: '/boom', scope: 'ReadConfig', handle: async () => Promise.reject(new Error('kaboom')) },
    ];
    const server = await startServer({ dataDir, log: createLogger({ destination }), port: 0, routeFactories: [boom] });
    try {
      const token = server.environments.get(DEFAULT_ENVIRONMENT)!.tokens.addEphemeral(['ReadConfig']);
      const response = await api(`${server.envUrl()}/boom`, { token });
      expectEnvelope(response, 500, /x-request-id/);
      const requestId = response.headers.get('x-request-id');
      const logged = lines.find((line) => line['msg'] === 'request failed');
      expect(logged).toMatchObject({ requestId, err: { message: 'kaboom' } });
    } finally {
      await server.close();
    }
  });

  it('answers a write that arrives while the store is closing with 503 and Retry-After', async () => {
    const server = await startServer({ dataDir, log: silentLogger(), port: 0 });
    try {
      const local = server.environments.get(DEFAULT_ENVIRONMENT)!;
      const token = local.tokens.addEphemeral(['WriteConfig']);
      await local.dashboards.close();
      const response = await api(`${server.envUrl()}/api/config/v1/dashboards`, { method: 'POST', token, body: minimalDashboard() });
      expectEnvelope(response, 503, 'The server is shutting down; retry shortly.');
      expect(response.headers.get('retry-after')).toBe('1');
    } finally {
      await server.close();
    }
  });

  it('lets an extra handler answer its own paths first and routes everything else to the API', async () => {
    const server = await startServer({
      dataDir,
      log: silentLogger(),
      port: 0,
      extraHandler: (req, res) => {
        if (req.url !== '/healthz') return false;
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        return true;
      },
    });
    try {
      expect((await api(`${server.url}/healthz`)).text).toBe('ok');
      expectEnvelope(await api(`${server.envUrl()}/api/config/v1/dashboards`), 401);
    } finally {
      await server.close();
    }
  });

  it('startEmbeddedServer serves local on a free port with a ready token, and releases the dir', async () => {
    const embedded = await startEmbeddedServer({ dataDir, log: silentLogger() });
    expect(embedded.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/e\/local$/);
    const created = await api(`${embedded.url}/api/config/v1/dashboards`, { method: 'POST', token: embedded.token, body: minimalDashboard() });
    expect(created.status).toBe(201);
    expect((await api(`${embedded.url}/api/config/v1/dashboards`, { token: embedded.token })).status).toBe(200);
    expect((await api(`${embedded.url}/api/v1/events`, { token: embedded.token })).status).toBe(200);
    expect((await readOwner(dataDir))?.url).toBe(embedded.url.replace(/\/e\/local$/, ''));
    await embedded.close();
    expect(await readOwner(dataDir)).toBeUndefined();
  });
});
