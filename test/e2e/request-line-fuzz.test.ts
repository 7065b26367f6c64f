import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardYaml } from '../helpers/daemon.js';
import { daemonScopePerFile } from '../helpers/daemon-scope.js';
import { serveChildren, startServeChild } from '../helpers/serve-child.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * Raw request lines, written byte for byte over a socket (an HTTP client library would refuse or normalise most of
 * them), against every listener of ours as a user starts it: `dashcd serve`, the daemon serving its embedded API, and
 * the daemon's status-only listener. Each must get an HTTP answer under 500, and the process must go on answering.
 */

const scope = daemonScopePerFile();

/**
 * The request lines of issue 31 that stopped the process, and their kin. (The HTTP/2 preface is given whole: after
 * `PRI * HTTP/…` alone the parser waits for the rest of it, answered only by the headers timeout.)
 */
const KNOWN = ['GET //a:b HTTP/1.1', 'GET /\\a:b HTTP/1.1', 'GET ///%c0%ae%c0%ae/%c0%ae HTTP/1.1', 'GET /ui/e/%E0%A4%A HTTP/1.1', 'GET //ui:x HTTP/1.1', 'GET /ui//a:b HTTP/1.1', 'GET http://x/ui HTTP/1.1', 'OPTIONS * HTTP/1.1', 'CONNECT 127.0.0.1:22 HTTP/1.1', 'PRI * HTTP/2.0\r\n\r\nSM'];

const SEGMENTS = ['ui', 'e', 'local', 'login', 'events', 'dashboard', 'status', 'healthz', 'metrics', 'hooks', 'git', 'api', '..', '.', '%', '%c0', '%ae', '%E0%A4%A', '%ZZ', '%00', '%2F', '\\', 'a:b', '', '?', '?key=%', '#x', '@', '[::1]', 'http:'];

const requestLine = fc
  .record({
    method: fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH', 'TRACE', 'CONNECT', 'get', 'FOO', ''),
    target: fc.oneof(
      fc.constantFrom('*', '//a:b', '/\\a:b', 'http://x/ui', 'http://x/ui/e/local', 'https://[::1]/status', 'x:80', '/ui', '/ui?', '/ui/login', '/status?%', '/hooks/git?x'),
      fc.array(fc.oneof(fc.constantFrom(...SEGMENTS), fc.string({ maxLength: 6 })), { maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
      fc.tuple(fc.constantFrom('/ui', '/ui/e/', '//', '/\\', ''), fc.string({ maxLength: 20, unit: 'binary-ascii' })).map(([a, b]) => a + b),
      fc.integer({ min: 2_000, max: 40_000 }).map((n) => `/ui/e/${'%c0'.repeat(Math.floor(n / 3))}`),
    ),
    version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', '', 'HTTP/1.1 extra'),
    host: fc.boolean(),
  })
  .map(({ method, target, version, host }) => ({ line: [method, target, version].filter((p) => p !== '').join(' '), host }));

/** Writes one raw request and resolves with the status of the first answer (undefined: closed without one). */
function rawStatus(port: number, line: string, host: boolean): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const done = (status: number | undefined): void => {
      socket.destroy();
      resolve(status);
    };
    socket.on('data', (data) => {
      received += data.toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(received)?.[1];
      if (status !== undefined) done(Number(status));
      else if (received.includes('\r\n')) reject(new Error(`not an HTTP answer to ${JSON.stringify(line.slice(0, 120))}: ${JSON.stringify(received.slice(0, 120))}`));
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
    socket.write(`${line}\r\n${host ? `Host: 127.0.0.1:${port}\r\n` : ''}\r\n`);
    setTimeout(() => reject(new Error(`no answer in 10 s to ${JSON.stringify(line.slice(0, 120))}`)), 10_000).unref();
  });
}

/** Every known line, then generated ones (fixed seed, so a failure repeats): an answer under 500, then still alive. */
async function fuzzListener(port: number, alive: () => boolean): Promise<void> {
  for (const line of KNOWN) {
    const status = await rawStatus(port, line, true);
    expect(status, line).toBeDefined();
    expect(status, line).toBeLessThan(500);
  }
  expect(alive()).toBe(true);
  await fc.assert(
    fc.asyncProperty(requestLine, async ({ line, host }) => {
      const status = await rawStatus(port, line, host);
      expect(status, `${line.slice(0, 200)} (Host: ${host})`).toBeDefined();
      expect(status).toBeLessThan(500);
    }),
    { seed: 31, numRuns: 200 },
  );
  expect(alive()).toBe(true);
  expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBeLessThan(500);
}

describe('raw request lines against every listener', { timeout: 60_000 }, () => {
  let dataDir: string | undefined;
  let target: TestServer | undefined;
  afterAll(async () => {
    for (const child of serveChildren) child.kill('SIGKILL');
    await target?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('dashcd serve (API and console) answers each under 500 and keeps running', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dashcd-fuzz-serve-'));
    const child = await startServeChild(dataDir, '');
    const port = Number(new URL(child.url).port);
    await fuzzListener(port, () => child.process.exitCode === null && child.process.signalCode === null);
    expect((await fetch(`http://127.0.0.1:${port}/ui`)).status).toBe(200);
  });

  it('the daemon serving its embedded API (status endpoints, console, API) answers each under 500 and keeps running', async () => {
    const project = await scope.createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const d = await scope.startDaemon(['--resync', '1h', '--poll', '1h'], { cwd: project.root });
    await fuzzListener(Number(new URL(d.url).port), () => d.process.exitCode === null && d.process.signalCode === null);
    expect((await fetch(`${d.url}/ui/e/local`)).status).toBe(200);
  });

  it('the daemon with a remote target (status-only listener with the console) answers each under 500 and keeps running', async () => {
    target = await startTestServer({ scopes: ['ReadConfig', 'WriteConfig', 'DataExport'] });
    const project = await scope.createProject({ 'dashboards/web.yaml': dashboardYaml('Web') });
    const d = await scope.startDaemon(['--target', target.url, '--resync', '1h', '--poll', '1h'], { cwd: project.root, env: { DT_API_TOKEN: target.token } });
    await fuzzListener(Number(new URL(d.url).port), () => d.process.exitCode === null && d.process.signalCode === null);
    expect((await fetch(`${d.url}/status`)).status).toBe(200);
  });
});
