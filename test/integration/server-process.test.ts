import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/lib/logger.js';
import { startServer } from '../../src/server/create-server.js';
import { readOwner } from '../../src/server/data-dir.js';
import { parseProcStat } from '../../src/server/process-liveness.js';
import { MAIN_JS } from '../helpers/cli.js';

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
});
