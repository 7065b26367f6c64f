import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { NotMeasurableYet } from './figure.js';

const BUNDLED_MAIN = fileURLToPath(new URL('../../bundle/main.js', import.meta.url));

/**
 * The dashcd entry point built beside the bench, so the bench measures the code it was built with: the bundle users
 * run (`npm run bench` makes it, scripts/bundle.mjs) when there is one, else the compiled modules (a `--before`
 * build of a commit that had no bundle, as its users ran it).
 */
export const DASHCD_MAIN = existsSync(BUNDLED_MAIN) ? BUNDLED_MAIN : fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** Spawn to exit: what a user waits for, node start-up included. */
  wallMs: number;
}

export interface CliOptions {
  cwd: string;
  env?: Record<string, string>;
  execArgv?: readonly string[];
  timeoutMs?: number;
  /** Called with the child's pid once it is spawned (a figure sampling its memory). */
  onSpawn?: (pid: number) => void;
}

/**
 * A figure measured through the CLI needs its command in the command table and the modules it measures compiled
 * beside the bench (paths relative to `src/`, as `.js`); until then it is listed as not yet measured.
 */
export async function requireComponent(command: readonly string[], modules: readonly string[] = []): Promise<void> {
  for (const module of modules) {
    if (!existsSync(fileURLToPath(new URL(`../../src/${module}`, import.meta.url)))) throw new NotMeasurableYet(`src/${module.replace(/\.js$/, '.ts')} has not landed yet`);
  }
  // Loaded lazily: while a command's modules are missing, the bench must still run every other figure.
  const table = await import('../../src/cli/commands/index.js').catch((error: unknown) => {
    const missing = /Cannot find module '[^']*\/(src\/[^']+)'/.exec(String(error))?.[1];
    throw new NotMeasurableYet(`the command table does not load yet (${missing ? `${missing} is missing` : String(error).slice(0, 120)})`);
  });
  const found = table.commands.some((c) => c.path.join(' ') === command.join(' '));
  if (!found) throw new NotMeasurableYet(`command '${command.join(' ')}' is not in the command table yet`);
}

/** Runs `dashcd <args>` as a child process, bounded in time, with logs quiet unless they are errors. */
export function runDashcd(args: readonly string[], options: CliOptions): Promise<CliRun> {
  return runNodeScript(DASHCD_MAIN, args, options);
}

/** Runs a baseline task (bench/children/baseline-task) as its own process, like the CLI it is compared with. */
export async function runBaselineTask(task: string, args: Record<string, unknown>, options: CliOptions): Promise<{ wallMs: number; counts: Record<string, number> }> {
  const run = await runNodeScript(BASELINE_TASK, [task, JSON.stringify(args)], options);
  if (run.code !== 0) throw new Error(`baseline ${task} exited ${run.code}: ${run.stderr.slice(-800)}`);
  return { wallMs: run.wallMs, counts: JSON.parse(run.stdout) as Record<string, number> };
}

const BASELINE_TASK = fileURLToPath(new URL('../children/baseline-task.js', import.meta.url));

export function runNodeScript(script: string, args: readonly string[], options: CliOptions): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, [...(options.execArgv ?? []), script, ...args], {
    cwd: options.cwd,
    // Cold by default: every figure checks every file, as the code before the check cache did and as each baseline
    // parses every file; a figure that measures the cache turns it on with a cache folder of its own.
    env: { ...process.env, DASHCD_LOG_LEVEL: 'error', DASHCD_CACHE: 'off', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) options.onSpawn?.(child.pid);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timeoutMs = options.timeoutMs ?? 300_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ').slice(0, 200)} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}

/** A run that must succeed: anything else is a failed figure, with the command's own words. */
export async function runDashcdOk(args: readonly string[], options: CliOptions, okCodes: readonly number[] = [0]): Promise<CliRun> {
  const result = await runDashcd(args, options);
  if (!okCodes.includes(result.code)) {
    throw new Error(`dashcd ${args.join(' ')} exited ${result.code}: ${(result.stderr || result.stdout).slice(-800)}`);
  }
  return result;
}
