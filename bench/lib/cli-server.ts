import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { DASHCD_MAIN, runDashcdOk } from './cli.js';
import type { FigureContext } from './figure.js';
import type { ServerUnderTest } from './servers.js';
import { readTreeMemory } from './tree-memory.js';

const READY = /^dashcd serving (\S+) /;

/**
 * `dashcd serve` exactly as a user starts it: `node main.js serve`, no Node options, so it relaunches itself with
 * the server's (src/cli/relaunch.ts) and the launcher's start-up and memory are part of the figure. Timed spawn →
 * its banner (the API answers by then). `token` is what the figure will send, if anything.
 */
export async function startServeCommand(ctx: FigureContext, dataDir: string, token = ''): Promise<ServerUnderTest> {
  const started = performance.now();
  const child = spawn(process.execPath, [...ctx.execArgv, DASHCD_MAIN, 'serve', '--port', '0', '--data', dataDir], { cwd: ctx.workDir, stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const served = READY.exec(line)?.[1];
      if (served) resolve(served);
    });
    child.once('exit', (code) => reject(new Error(`dashcd serve exited ${code} before it was ready`)));
  });
  const startMs = performance.now() - started;
  const pid = child.pid ?? -1;
  return {
    kind: 'dashcd-serve',
    arg: dataDir,
    endpoint: { baseUrl: url, token },
    origin: new URL(url).origin,
    pid,
    startMs,
    memory: () => readTreeMemory(pid),
    // A user's `dashcd serve` has no control channel; its files are complete once it has stopped.
    settled: () => Promise.reject(new Error('`dashcd serve` cannot be asked to settle; stop it instead')),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `dashcd serve` as a user starts it (startServeCommand) with a token made by `dashcd token create`, for figures
 * that measure end to end what a user waits for rather than the bench's own server process.
 */
export async function startCliServer(ctx: FigureContext, dataDir: string, scopes: string): Promise<ServerUnderTest> {
  const created = await runDashcdOk(['token', 'create', '--data', dataDir, '--scopes', scopes, '--name', `bench-${Date.now()}`], { cwd: ctx.workDir });
  return startServeCommand(ctx, dataDir, created.stdout.trim().split('\n').at(-1) ?? '');
}
