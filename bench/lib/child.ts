import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Messages a bench child sends: `ready` once, with whatever the parent needs to reach it. */
export interface ReadyMessage {
  type: 'ready';
  [key: string]: unknown;
}

export interface ChildHandle {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Milliseconds from fork to the child's `ready` message. */
  readonly readyMs: number;
  readonly ready: ReadyMessage;
  /** Asks the child to close what it serves and exit; kills it if it does not within the grace period. */
  stop(): Promise<void>;
  /** Asks a server child to finish writing what it acknowledged (`ServedBaseline.settled`); resolves when it has. */
  settled(): Promise<void>;
}

export interface ForkOptions {
  execArgv?: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** The child must report ready within this, or it is killed and the figure fails. */
  readyTimeoutMs?: number;
}

/** Forks a bench child script (compiled, next to this file's tree) and waits for its `ready` message. */
export async function forkChild(script: URL, args: readonly string[], options: ForkOptions = {}): Promise<ChildHandle> {
  const started = performance.now();
  const child = fork(fileURLToPath(script), [...args], {
    execArgv: [...(options.execArgv ?? [])],
    env: options.env ?? process.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await waitReady(child, options.readyTimeoutMs ?? 120_000);
  const readyMs = performance.now() - started;
  return { process: child, pid: child.pid ?? -1, readyMs, ready, stop: () => stopChild(child), settled: () => settleChild(child) };
}

function settleChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: { type?: string; error?: string }): void => {
      if (message.type !== 'settled' && message.type !== 'settle-failed') return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (message.type === 'settled') resolve();
      else reject(new Error(`server could not write what it acknowledged: ${message.error ?? 'unknown'}`));
    };
    const onExit = (): void => {
      child.off('message', onMessage);
      reject(new Error('server exited while settling'));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ type: 'settle' });
  });
}

function waitReady(child: ChildProcess, timeoutMs: number): Promise<ReadyMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not become ready within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', (message: { type?: string; error?: string }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message as ReadyMessage);
      } else if (message.type === 'error') {
        clearTimeout(timer);
        reject(new Error(`child failed: ${message.error ?? 'unknown'}`));
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`child exited (${code ?? signal}) before it was ready`));
    });
  });
}

async function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send({ type: 'stop' });
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** The child side: report ready, then exit cleanly when the parent says stop or goes away. */
export function serveUntilStopped(ready: Record<string, unknown>, close: () => Promise<void>, settled?: () => Promise<void>): void {
  const finish = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  const settle = (): void => {
    (settled?.() ?? Promise.resolve()).then(
      () => process.send?.({ type: 'settled' }),
      (error: unknown) => process.send?.({ type: 'settle-failed', error: String(error) }),
    );
  };
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'stop') finish();
    else if (message.type === 'settle') settle();
  });
  process.on('disconnect', finish);
  process.send?.({ ...ready, type: 'ready' });
}

/** The child side of a failure before ready: the parent gets the reason instead of a bare exit code. */
export function reportChildFailure(error: unknown): void {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (process.send) process.send({ type: 'error', error: text }, () => process.exit(1));
  else {
    process.stderr.write(`${text}\n`);
    process.exit(1);
  }
}
