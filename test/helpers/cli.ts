import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { commands as allCommands } from '../../src/cli/commands/index.js';
import type { Command } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run.js';
import { silentLogger, type Logger } from '../../src/lib/logger.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  cwd: string;
  /** The whole environment the command sees; nothing is inherited, so a developer's DT_API_TOKEN never leaks in. */
  env?: Record<string, string | undefined>;
  log?: Logger;
  signal?: AbortSignal;
  /** Defaults to the real command table. */
  commands?: readonly Command[];
}

/** Runs dashcd in this process, exactly as `main.ts` does, with captured stdout and stderr. */
export async function runDashcd(argv: readonly string[], options: CliRunOptions): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const sink = (into: string[]): Writable =>
    new Writable({
      write(chunk, _encoding, done) {
        into.push(String(chunk));
        done();
      },
    });
  const signal = options.signal ?? new AbortController().signal;
  const io = {
    stdout: sink(out),
    stderr: sink(err),
    env: options.env ?? {},
    cwd: options.cwd,
    log: options.log ?? silentLogger(),
    signal,
  };
  const code = await runCli(options.commands ?? allCommands, argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** `dist/bundle/main.js`, what `dashcd` runs: built by `npm test` (or `npm run build`) before the suite runs. */
export const MAIN_JS = fileURLToPath(new URL('../../dist/bundle/main.js', import.meta.url));

function childEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  // Only what node and git need from the parent; the test decides everything else.
  const keep = ['PATH', 'HOME', 'SYSTEMROOT', 'TMPDIR', 'LANG'];
  const base = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  // The check cache lives in the user's cache folder: a test run must neither leave files there nor read them.
  return { ...base, DASHCD_LOG_LEVEL: 'warn', DASHCD_CACHE: 'off', ...env };
}

/** tsc records each build here; the bundle is made from that build right after it (`npm run build`). */
const BUILD_INFO = fileURLToPath(new URL('../../dist/tsconfig.tsbuildinfo', import.meta.url));

function requireBuild(): void {
  if (!existsSync(MAIN_JS)) throw new Error(`${MAIN_JS} is missing: run 'npm run build' (npm test builds first)`);
  // A `tsc` alone rebuilds dist/ but not the bundle: the children would run the code as it was before the edit.
  if (existsSync(BUILD_INFO) && statSync(BUILD_INFO).mtimeMs > statSync(MAIN_JS).mtimeMs) {
    throw new Error(`${MAIN_JS} is older than the last tsc build: run 'npm run build' (it bundles after compiling)`);
  }
}

/** Runs `node dist/bundle/main.js …` as a child process and waits for it to exit. */
export function runDashcdChild(argv: readonly string[], options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number }): Promise<CliResult> {
  requireBuild();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [MAIN_JS, ...argv],
      { cwd: options.cwd, env: childEnv(options.env), timeout: options.timeoutMs ?? 90_000, encoding: 'utf8', maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : undefined) : 0;
        if (code === undefined) reject(new Error(`dashcd ${argv.join(' ')} did not exit normally: ${error?.message}\n${stderr}`));
        else resolve({ code, stdout, stderr });
      },
    );
  });
}

export interface DashcdChild {
  readonly process: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  /** SIGTERM, then wait for the exit; resolves to the exit code. */
  stop(): Promise<number | null>;
}

/** Starts a long-running `node dist/bundle/main.js …` (e.g. `serve`) and resolves once its output matches `ready`. */
export async function startDashcdChild(
  argv: readonly string[],
  options: { cwd: string; env?: Record<string, string | undefined>; ready: RegExp; timeoutMs?: number },
): Promise<DashcdChild> {
  requireBuild();
  const child = spawn(process.execPath, [MAIN_JS, ...argv], { cwd: options.cwd, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`dashcd ${argv.join(' ')} not ready after ${options.timeoutMs ?? 60_000} ms:\n${text}`)), options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString('utf8');
      if (options.ready.test(text)) {
        clearTimeout(timer);
        resolve();
      }
    };
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) => fail(new Error(`dashcd ${argv.join(' ')} exited with ${code} before ready:\n${text}`)));
  });
  return {
    process: child,
    output: () => text,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

export interface Project {
  /** The project root (the cwd for commands); dashboards live in `dashboards/` under it. */
  readonly root: string;
  write(file: string, text: string): Promise<void>;
  remove(file: string): Promise<void>;
  git(...args: string[]): Promise<string>;
  /** `git add -A && git commit`, as a fixed author; returns the new commit's full hash. */
  commit(message: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A temporary project folder with `files` written into it, optionally a git repository with them committed. */
export async function createProject(files: Record<string, string> = {}, options: { git?: boolean } = {}): Promise<Project> {
  const root = await mkdtemp(join(tmpdir(), 'dashcd-project-'));
  const write = async (file: string, text: string): Promise<void> => {
    await mkdir(dirname(join(root, file)), { recursive: true });
    await writeFile(join(root, file), text);
  };
  const git = (...args: string[]): Promise<string> => runGit(root, args);
  const project: Project = {
    root,
    write,
    remove: (file) => rm(join(root, file), { force: true }),
    git,
    async commit(message) {
      await git('add', '-A');
      await git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--no-gpg-sign', '-m', message);
      return (await git('rev-parse', 'HEAD')).trim();
    },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
  for (const [file, text] of Object.entries(files)) await write(file, text);
  if (options.git) {
    await git('init', '-q', '-b', 'main');
    await project.commit('initial dashboards');
  }
  return project;
}

function runGit(cwd: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('git', args, { cwd, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args.join(' ')}: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}

/** A port on 127.0.0.1 that was free a moment ago and that nobody listens on now: an unreachable target. */
export async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}
