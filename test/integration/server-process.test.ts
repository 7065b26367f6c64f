import { spawn, type ChildProcess } from 'node:child_process';
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

const CHILD_ENV = { ...process.env, DASHCD_LOG_LEVEL: 'warn' };

async function waitFor<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const procState = async (pid: number): Promise<string | undefined> =>
  parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => ''))?.state;

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
    await waitFor(async () => ((await readOwner(dataDir))?.url ? true : undefined), 'serve publishes its URL');
    expect((await readOwner(dataDir))?.pid).toBe(pid);

    process.kill(pid, 'SIGKILL');
    await waitFor(async () => ((await procState(pid)) === 'Z' ? true : undefined), 'serve becomes a zombie');
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
    const url = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).on('line', (line) => {
        const served = /^dashcd serving (\S+) /.exec(line)?.[1];
        if (served) resolve(served);
      }),
    );

    const ids = Array.from({ length: 8 }, (_, i) => `7e57e000-aaaa-4bbb-8ccc-${String(i).padStart(12, '0')}`);
    const sent = new Map(ids.map((id) => [id, 0]));
    const acked = new Map(ids.map((id) => [id, 0]));
    let inFlight = 0;
    let terminated = false;
    let ackedAfterTerm = 0;
    const headers = { authorization: `Api-Token ${token}`, 'content-type': 'application/json' };
    // One sequential writer per id: each id's versions are ordered, so the file must hold the last acknowledged one or a later one.
    const writers = ids.map(async (id) => {
      for (;;) {
        const n = (sent.get(id) ?? 0) + 1;
        sent.set(id, n);
        inFlight += 1;
        const body = JSON.stringify(minimalDashboard(`${id} v${n}`));
        const response = await fetch(`${url}/api/config/v1/dashboards/${id}`, { method: 'PUT', headers, body }).catch(() => undefined);
        inFlight -= 1;
        if (response?.status !== 201 && response?.status !== 204) return;
        acked.set(id, n);
        if (terminated) ackedAfterTerm += 1;
      }
    });
    await waitFor(async () => ([...acked.values()].every((n) => n >= 3) ? true : undefined), 'every writer acknowledged');
    expect(inFlight).toBeGreaterThan(0);
    child.kill('SIGTERM');
    terminated = true;
    expect(await exited).toBe(0);
    await Promise.all(writers);
    // Writes the server had received when the signal came were finished and answered, not dropped.
    expect(ackedAfterTerm).toBeGreaterThan(0);

    for (const id of ids) {
      const stored = Dashboard.parse(JSON.parse(await readFile(join(layout.dashboardsDir(DEFAULT_ENVIRONMENT), `${id}.json`), 'utf8')));
      const version = Number(/ v(\d+)$/.exec(stored.dashboardMetadata.name)?.[1]);
      expect(version, id).toBeGreaterThanOrEqual(acked.get(id) ?? 0);
      expect(version, id).toBeLessThanOrEqual(sent.get(id) ?? 0);
    }
    expect(await readOwner(dataDir)).toBeUndefined();
  });
});
