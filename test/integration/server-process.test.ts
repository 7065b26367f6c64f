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
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { MAIN_JS } from '../helpers/cli.js';
import { minimalDashboard } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';

const CHILD_ENV = { ...process.env, DASHCD_LOG_LEVEL: 'warn' };

const procStat = async (pid: number): Promise<ReturnType<typeof parseProcStat>> => parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''));
const procState = async (pid: number): Promise<string | undefined> => (await procStat(pid))?.state;
/** Gone, or dead and waiting to be reaped. */
const processEnded = async (pid: number): Promise<boolean> => (await procStat(pid))?.exited ?? true;
const commandLine = async (pid: number): Promise<string[]> => (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
const parentPid = async (pid: number): Promise<number> => Number(/^PPid:\s+(\d+)/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]);

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
  /** Servers started by a launcher: killed launchers take them down, which the data dir's removal waits for. */
  const launchedServers: number[] = [];
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dashcd-process-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    for (const pid of launchedServers.splice(0)) await waitFor(() => processEnded(pid), { what: `launched server ${pid} to end` });
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a serve killed with SIGKILL whose parent never reaps it (a zombie) does not keep the data dir locked', async () => {
    // `sh` starts serve in the background, prints its pid, then becomes `sleep`, which never waits for children. With
    // the server's Node options given, serve is that very process (no launcher).
    const script = 'data="$1"; shift; "$0" "$@" serve --port 0 --data "$data" & echo $!; exec sleep 60';
    const parent = spawn('sh', ['-c', script, process.execPath, dataDir, ...serverNodeOptions(), MAIN_JS], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
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

  describe('started without the server\'s Node options, it serves from a child process that has them', () => {
    /** `dashcd serve` as a user starts it, and the server process it launched (the data dir's owner). */
    async function launch({ group = false } = {}): Promise<{ launcher: ChildProcess & { pid: number }; server: number; url: string; exited: Promise<number | null> }> {
      // `group`: in a process group of its own, as a shell's foreground job, for a signal to the whole group.
      const launcher = spawn(process.execPath, [MAIN_JS, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV, detached: group });
      children.push(launcher);
      const exited = new Promise<number | null>((resolve) => launcher.once('exit', (code) => resolve(code)));
      const url = await servedUrl(launcher);
      const server = (await readOwner(dataDir))?.pid;
      if (server === undefined || launcher.pid === undefined) throw new Error('serve printed its URL without an owner or a pid');
      launchedServers.push(server);
      return { launcher: launcher as ChildProcess & { pid: number }, server, url, exited };
    }

    it('the child runs with the options, under the launcher, and a Ctrl-C at the terminal stops both cleanly (exit 0)', async () => {
      const { launcher, server, url, exited } = await launch({ group: true });
      expect(server).not.toBe(launcher.pid);
      expect(await parentPid(server)).toBe(launcher.pid);
      expect(await commandLine(server)).toEqual(expect.arrayContaining([...serverNodeOptions(), MAIN_JS, 'serve']));
      expect(await accepts(url)).toBe(true);

      // A terminal's Ctrl-C goes to the whole foreground group: the server has its own SIGINT and the launcher's stop,
      // and takes them as one clean stop (a second stop meaning "now" would have ended it with 130).
      process.kill(-launcher.pid, 'SIGINT');
      expect(await exited).toBe(0);
      await waitFor(() => processEnded(server), { what: 'the server process to end' });
      expect(await readOwner(dataDir)).toBeUndefined();
    });

    it('a supervisor that signals both processes (systemd\'s default) stops the server once, cleanly (exit 0)', async () => {
      const layout = dataDirLayout(dataDir);
      await mkdir(layout.envDir(DEFAULT_ENVIRONMENT), { recursive: true });
      const { token } = await (await openTokenStore({ file: layout.tokensFile(DEFAULT_ENVIRONMENT) })).create({ name: 'supervised', scopes: ['WriteConfig'] });
      const { launcher, server, url, exited } = await launch();
      // A PUT in flight keeps the server stopping until its body comes.
      const held = await holdPut(url, HELD_IDS[0] ?? '', { authorization: `Api-Token ${token}`, 'content-type': 'application/json' });
      launcher.kill('SIGTERM');
      // The launcher's stop has reached the server; the supervisor's own SIGTERM to it comes after, and is not a second.
      await waitFor(async () => !(await accepts(url)), { what: 'the server to stop accepting connections' });
      process.kill(server, 'SIGTERM');
      expect(await held.send()).toBe(201);
      expect(await exited).toBe(0);
    });

    it('a launcher killed with SIGKILL takes its server with it, and the data dir can be served again', async () => {
      const { launcher, server } = await launch();
      launcher.kill('SIGKILL');
      await waitFor(() => processEnded(server), { what: 'the server process to end with its launcher' });
      expect(await readOwner(dataDir)).toBeUndefined();
      const next = await startServer({ dataDir, log: silentLogger(), port: 0 });
      expect((await readOwner(dataDir))?.pid).toBe(process.pid);
      await next.close();
    });

    it('the server\'s exit code is the launcher\'s: a second serve on an owned data dir exits 4', async () => {
      const { launcher, exited } = await launch();
      const second = spawn(process.execPath, [MAIN_JS, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], env: CHILD_ENV });
      children.push(second);
      let stderr = '';
      second.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // 'close': the message comes from the launched child through the shared pipe, which may outlive the exit.
      expect(await new Promise((resolve) => second.once('close', resolve))).toBe(4);
      expect(stderr).toMatch(/in use by dashcd pid \d+/);
      launcher.kill('SIGTERM');
      expect(await exited).toBe(0);
    });

    it('a wrong flag is the child\'s usage error, exit 64, as serve run in one process reports it', async () => {
      const wrong = spawn(process.execPath, [MAIN_JS, 'serve', '--port', 'eighty', '--data', dataDir], { stdio: ['ignore', 'ignore', 'pipe'], env: CHILD_ENV });
      children.push(wrong);
      let stderr = '';
      wrong.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      expect(await new Promise((resolve) => wrong.once('close', resolve))).toBe(64);
      expect(stderr).toContain("--port must be a number from 0 to 65535, not 'eighty'");
    });

    it('serve --help is printed by the launched child, which reads it against serve\'s flags: the help, exit 0, no server', async () => {
      const help = spawn(process.execPath, [MAIN_JS, 'serve', '--port', '0', '--data', dataDir, '--help'], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
      children.push(help);
      let stdout = '';
      help.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      expect(await new Promise((resolve) => help.once('close', resolve))).toBe(0);
      expect(stdout).toContain('Usage: dashcd serve [flags]');
      expect(await readOwner(dataDir)).toBeUndefined();
    });

    it('an operator\'s own server options are kept: serve then runs in the process started', async () => {
      const own = spawn(process.execPath, ['--v8-pool-size=3', '--initial-old-space-size=32', MAIN_JS, 'serve', '--port', '0', '--data', dataDir], { stdio: ['ignore', 'pipe', 'inherit'], env: CHILD_ENV });
      children.push(own);
      const exited = new Promise<number | null>((resolve) => own.once('exit', (code) => resolve(code)));
      await servedUrl(own);
      expect((await readOwner(dataDir))?.pid).toBe(own.pid);
      own.kill('SIGTERM');
      expect(await exited).toBe(0);
    });
  });
});
