import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/logger.js';
import { Dashboard } from '../../src/schema/dashboard.js';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { openTokenStore } from '../../src/server/auth/token-store.js';
import { startServer } from '../../src/server/create-server.js';
import { dataDirLayout, readOwner } from '../../src/server/data-dir.js';
import { parseProcStat } from '../../src/server/process-liveness.js';
import { MAIN_JS } from '../helpers/cli.js';
import { minimalDashboard } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const CHILD_ENV = { ...process.env, DASHCD_LOG_LEVEL: 'warn' };

const procState = async (pid: number): Promise<string | undefined> =>
  parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''))?.state;

/** The URL `dashcd serve` prints; rejects if the child exits first. */
function servedUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`serve exited (${code ?? signal}) before printing its URL`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const served = /^dashcd serving (\S+) /.exec(line)?.[1];
      if (served) resolve(served);
    });
  });
}

type Headers = Record<string, string>;
const dashboardPath = (id: string): string => `/api/config/v1/dashboards/${id}`;
const HELD_IDS = ['7e57e000-aaaa-4bbb-8ccc-100000000000', '7e57e000-aaaa-4bbb-8ccc-100000000001'];

/**
 * One sequential writer per id, each PUTting versions 1, 2, 3, … until a PUT fails: each id's versions are ordered,
 * so its file must hold the last acknowledged version or a later one it sent.
 */
function startBurst(url: string, headers: Headers): { writers: Map<string, { sent: number; acked: number }>; everyWriterAcknowledged(n: number): boolean; done: Promise<unknown> } {
  const ids = Array.from({ length: 8 }, (_, i) => `7e57e000-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
  const writers = new Map(ids.map((id) => [id, { sent: 0, acked: 0 }]));
  const done = Promise.all(
    [...writers].map(async ([id, writer]) => {
      for (;;) {
        writer.sent += 1;
        const body = JSON.stringify(minimalDashboard(`${id} v${writer.sent}`));
        const response = await fetch(`${url}${dashboardPath(id)}`, { method: 'PUT', headers, body }).catch(() => undefined);
        if (response?.status !== 201 && response?.status !== 204) return;
        writer.acked = writer.sent;
      }
    }),
  );
  return { writers, done, everyWriterAcknowledged: (n) => [...writers.values()].every((w) => w.acked >= n) };
}

/** A PUT of version 1 that has reached the server (100 Continue) and sends its body on `send()`; resolves to the status. */
async function holdPut(url: string, id: string, headers: Headers): Promise<{ send(): Promise<number | undefined> }> {
  const body = JSON.stringify(minimalDashboard(`${id} v1`));
  const request = httpRequest(`${url}${dashboardPath(id)}`, {
    method: 'PUT',
    agent: false,
    headers: { ...headers, expect: '100-continue', 'content-length': String(Buffer.byteLength(body)) },
  });
  const answered = new Promise<number | undefined>((resolve, reject) => {
    request.once('response', (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.once('error', reject);
  });
  request.flushHeaders();
  await new Promise<void>((resolve, reject) => {
    request.once('continue', resolve);
    answered.then(() => reject(new Error(`PUT ${id} was answered before it sent its body`)), reject);
  });
  return { send: () => (request.end(body), answered) };
}

/** Whether a new connection to `url` is accepted. */
function accepts(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function storedVersion(dashboardsDir: string, id: string): Promise<number> {
  const stored = Dashboard.parse(JSON.parse(await readFile(join(dashboardsDir, `${id}.json`), 'utf8')));
  return Number(/ v(\d+)$/.exec(stored.dashboardMetadata.name)?.[1]);
}

describe('dashcd serve as a child process', () => {
  let dataDir: string;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dashcd-process-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a serve killed with SIGKILL whose parent never reaps it (a zombie) does not keep the data dir locked', async () => {
    // `sh` starts serve in the background, prints its pid, then becomes `sleep`, which never waits for children.
    const script = '"$0" "$1" serve --port 0 --data "$2" & echo $!; exec sleep 60';
    const parent = spawn('sh', ['-c', script, process.execPath, MAIN_JS, dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
    children.push(parent);
    const pid = await new Promise<number>((resolve) => parent.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString()))));
    await waitFor(async () => ((await readOwner(dataDir))?.url ? true : undefined), { what: 'serve publishes its URL' });
    expect((await readOwner(dataDir))?.pid).toBe(pid);

    process.kill(pid, 'SIGKILL');
    await waitFor(async () => ((await procState(pid)) === 'Z' ? true : undefined), { what: 'serve becomes a zombie' });
    expect(await readOwner(dataDir)).toBeUndefined();
    const next = await startServer({ dataDir, log: silentLogger(), port: 0 });
    expect((await readOwner(dataDir))?.pid).toBe(process.pid);
    await next.close();
  });

  it('a serve given SIGTERM while PUTs are in flight finishes them, exits 0, and every acknowledged PUT is on disk', async () => {
    const layout = dataDirLayout(dataDir);
    await mkdir(layout.envDir(DEFAULT_ENVIRONMENT), { recursive: true });
    const { token } = await (await openTokenStore({ file: layout.tokensFile(DEFAULT_ENVIRONMENT) })).create({ name: 'term', scopes: ['WriteConfig'] });
    const child = spawn(process.execPath, [MAIN_JS, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
    children.push(child);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const url = await servedUrl(child);
    const headers = { authorization: `Api-Token ${token}`, 'content-type': 'application/json' };

    const burst = startBurst(url, headers);
    await waitFor(() => burst.everyWriterAcknowledged(3), { what: 'every writer acknowledged' });
    // These PUTs have reached the server (it answered 100 Continue) but not sent their bodies: in flight for certain.
    const held = await Promise.all(HELD_IDS.map((id) => holdPut(url, id, headers)));
    child.kill('SIGTERM');
    await waitFor(async () => !(await accepts(url)), { what: 'serve to stop accepting connections' });
    // Shutdown has begun; only now do the held PUTs send their bodies, and they are still answered.
    expect(await Promise.all(held.map((put) => put.send()))).toEqual(HELD_IDS.map(() => 201));
    expect(await exited).toBe(0);
    await burst.done;

    const dashboards = layout.dashboardsDir(DEFAULT_ENVIRONMENT);
    for (const id of HELD_IDS) expect(await storedVersion(dashboards, id), id).toBe(1);
    for (const [id, { sent, acked }] of burst.writers) {
      const version = await storedVersion(dashboards, id);
      expect(version, id).toBeGreaterThanOrEqual(acked);
      expect(version, id).toBeLessThanOrEqual(sent);
    }
    expect(await readOwner(dataDir)).toBeUndefined();
  });
});
