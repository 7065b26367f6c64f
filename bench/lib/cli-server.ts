import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { serverNodeOptions } from '../../src/server/server-node-options.js';
import { DASHCD_MAIN, runDashcdOk } from './cli.js';
import { readProcMemory } from './child.js';
import type { FigureContext } from './figure.js';
import type { ServerUnderTest } from './servers.js';

const READY = /^dashcd serving (\S+) /;

/**
 * `dashcd serve` exactly as a user starts it (the CLI, default logging, a token made with `dashcd token create`),
 * for figures that measure end to end what a user waits for rather than the bench's own server process.
 */
export async function startCliServer(ctx: FigureContext, dataDir: string, scopes: string): Promise<ServerUnderTest> {
  const created = await runDashcdOk(['token', 'create', '--data', dataDir, '--scopes', scopes, '--name', `bench-${Date.now()}`], { cwd: ctx.workDir });
  const token = created.stdout.trim().split('\n').at(-1) ?? '';
  const started = performance.now();
  // Its Node options given, serve runs in this very process (no launcher), whose pid the figure samples.
  const child = spawn(process.execPath, [...serverNodeOptions(), ...ctx.execArgv, DASHCD_MAIN, 'serve', '--port', '0', '--data', dataDir], { cwd: ctx.workDir, stdio: ['ignore', 'pipe', 'ignore'] });
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
    memory: () => readProcMemory(pid),
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
