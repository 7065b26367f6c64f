import { spawn, type ChildProcess } from 'node:child_process';
import { DASHCD_MAIN } from './cli.js';
import { readTreeMemory, type ProcMemory } from './tree-memory.js';

/** A dashcd process that runs until told to stop (the daemon), with its output kept for the figure to read. */
export interface LongProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the first match of `pattern` in stdout+stderr; fails after `timeoutMs` or if the process exits. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  memory(): ProcMemory;
  /** SIGTERM, then SIGKILL after the grace period: never leaves a process behind. */
  stop(graceMs?: number): Promise<number | null>;
}

export function startDashcd(args: readonly string[], options: { cwd: string; env?: Record<string, string>; execArgv?: readonly string[] }): LongProcess {
  const child = spawn(process.execPath, [...(options.execArgv ?? []), DASHCD_MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, DASHCD_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer): void => {
    // Only the head of the output matters (the ready banner, errors); a chatty process must not grow memory here.
    if (text.length < 1 << 20) text += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    memory: () => readTreeMemory(child.pid ?? -1),
    waitFor: (pattern, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(text);
          if (match) finish(() => resolve(match));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`no ${String(pattern)} within ${timeoutMs} ms; output: ${text.slice(-1500)}`))), timeoutMs);
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        void exited.then((code) => finish(() => reject(new Error(`dashcd exited (${code}) early; output: ${text.slice(-1500)}`))));
        check();
      }),
    stop: async (graceMs = 15_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
