import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { versionKey, readEventView } from '../../src/archive/archived-event.js';
import { Checkpoint } from '../../src/archive/checkpoint.js';
import { MAIN_JS, runDashcd, unusedPort } from './cli.js';
import { waitFor } from './wait.js';

// The daemon tests import waitFor from here along with the daemon helpers.
export { waitFor };

/** What the tests read of `/status` (the daemon's JSON; see src/daemon/daemon-status.ts). */
export interface StatusJson {
  alive: boolean;
  git: { commit: string; shortCommit: string; branch?: string; dirty: boolean } | null;
  lastReconcile: { at: string; full: boolean; ok: boolean; error?: string } | null;
  driftCount: number;
  drifted: string[];
  files: Record<string, { id?: string; kind?: 'dashboard' | 'document'; result: string; at: string; error?: string }>;
  invalid: { file: string; errors: string[] }[];
  orphans: { id: string; name: string; kind: 'dashboard' | 'document' }[];
  /** Per kind: valid files, files left drifted, orphans. */
  kinds: Record<'dashboard' | 'document', { files: number; drifted: number; orphans: number }>;
  poller: { eventsArchived: number; position?: number; lastError?: string };
  /** With environments: one loop's status each (the fields above are then absent; see EnvironmentsStatusJson). */
  environments?: (Omit<StatusJson, 'environments' | 'alive'> & { name: string; group: string | null; target: string; stale: string[] })[];
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface DaemonChild {
  readonly process: ChildProcess;
  /** `http://127.0.0.1:<port>`: status endpoints, and the embedded API under `/e/local`. */
  readonly url: string;
  stdout(): string;
  stderr(): string;
  status(): Promise<StatusJson>;
  metrics(): Promise<Sample[]>;
  /** Sends `signal` and resolves with the exit code and how long the exit took. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; ms: number }>;
}

export { unusedPort as freePort };

export interface StartDaemonOptions {
  cwd: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** `reconciled` (default): the first pass has finished; `listening`: `/healthz` answers (the target may be down). */
  until?: 'reconciled' | 'listening';
}

/**
 * Starts `node dist/bundle/main.js daemon --listen 127.0.0.1:<free port> …args` in `cwd` and resolves once its first
 * reconcile pass has finished (`/status` shows `lastReconcile`). Logs at info, JSON (stdout is a pipe).
 */
export async function startDaemon(args: readonly string[], options: StartDaemonOptions): Promise<DaemonChild> {
  // The port is free when asked for, and bound by the child a moment later: in a full run another test's server can
  // take it in between (EADDRINUSE, seen once in 344 files). Another port then, as a person would choose one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDaemonOnce(args, options);
    } catch (error) {
      if (attempt >= 3 || !(error instanceof Error) || !error.message.includes('EADDRINUSE')) throw error;
    }
  }
}

async function startDaemonOnce(args: readonly string[], options: StartDaemonOptions): Promise<DaemonChild> {
  const port = await unusedPort();
  const url = `http://127.0.0.1:${port}`;
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG'];
  const env = { ...Object.fromEntries(keep.flatMap((k) => (process.env[k] === undefined ? [] : [[k, process.env[k]]]))), DASHCD_LOG_LEVEL: 'info', ...options.env };
  const child = spawn(process.execPath, [MAIN_JS, 'daemon', '--listen', `127.0.0.1:${port}`, ...args], { cwd: options.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const daemon: DaemonChild = {
    process: child,
    url,
    stdout: () => out,
    stderr: () => err,
    status: async () => (await (await fetch(`${url}/status`)).json()) as StatusJson,
    metrics: async () => parsePrometheus(await (await fetch(`${url}/metrics`)).text()),
    async stop(signal = 'SIGTERM') {
      const started = performance.now();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      return { code, ms: performance.now() - started };
    },
  };
  try {
    const ready = async (): Promise<unknown> =>
      options.until === 'listening' ? (await fetch(`${url}/healthz`).catch(() => undefined))?.ok : reconciled(await daemon.status().catch(() => undefined));
    await waitFor(async () => child.exitCode === null && (await ready()), {
      timeoutMs: options.timeoutMs ?? 60_000,
      what: `the daemon to be ${options.until ?? 'reconciled'}`,
      failFast: () => (child.exitCode !== null ? `the daemon exited with ${child.exitCode}:\n${err}\n${out}` : undefined),
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return daemon;
}

/** The first pass has finished: of the one target, or of every environment. */
function reconciled(status: StatusJson | undefined): boolean {
  if (status?.environments) return status.environments.length > 0 && status.environments.every((env) => env.lastReconcile !== null);
  return Boolean(status?.lastReconcile);
}

const METRIC_NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${METRIC_NAME})(?:\\{(.*)\\})? (\\S+)$`);
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(?:,|$)/;

/**
 * Parses the Prometheus text exposition format strictly: every line is `# HELP`, `# TYPE` or a sample, every sample
 * belongs to a family typed before it, values are floats (or ±Inf/NaN). Throws naming the first bad line.
 */
export function parsePrometheus(text: string): Sample[] {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split('\n')) {
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type) {
      if (types.has(type[1] ?? '')) throw new Error(`second TYPE for ${type[1]}`);
      types.set(type[1] ?? '', type[2] ?? '');
      continue;
    }
    if (new RegExp(`^# HELP ${METRIC_NAME} `).test(line)) continue;
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a Prometheus text line: ${JSON.stringify(line)}`);
    const name = sample[1] ?? '';
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!types.has(family)) throw new Error(`sample ${name} has no TYPE before it`);
    const value = sample[3] === '+Inf' ? Infinity : sample[3] === '-Inf' ? -Infinity : Number(sample[3]);
    if (Number.isNaN(value) && sample[3] !== 'NaN') throw new Error(`bad value in ${JSON.stringify(line)}`);
    samples.push({ name, labels: parseLabels(sample[2] ?? '', line), value });
  }
  return samples;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = text;
  while (rest !== '') {
    const label = LABEL.exec(rest);
    if (!label) throw new Error(`bad labels in ${JSON.stringify(line)}`);
    labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(label[0].length);
  }
  return labels;
}

/** The sum of a family's samples whose labels include `labels` (0 when none). */
export function metricValue(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

/**
 * A stored token of the data dir's `local` environment, through the daemon or serve that owns it (or the file). Run
 * in this process (the real command, as main.ts runs it): a child process cost more than half a second a token.
 */
export async function createToken(cwd: string, dataDir: string, scopes = 'ReadConfig,WriteConfig,DataExport', env = 'local'): Promise<string> {
  const result = await runDashcd(['token', 'create', '--data', dataDir, '--env', env, '--scopes', scopes, '--name', 'test'], { cwd });
  if (result.code !== 0) throw new Error(`token create failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim().split('\n').pop() ?? '';
}

/** Every line of every partition of `<archiveDir>/<env>`. */
export async function archiveLines(archiveDir: string, env: string): Promise<string[]> {
  const envDir = join(archiveDir, env);
  const days = (await readdir(envDir).catch(() => [])).filter((name) => name.startsWith('date='));
  const lines: string[] = [];
  for (const day of days) lines.push(...(await readFile(join(envDir, day, 'events.jsonl'), 'utf8')).split('\n').filter((l) => l !== ''));
  return lines;
}

/**
 * Checks the archive the way a consumer relies on it: the checkpoint parses, and no event version is stored twice.
 * Returns the archived event ids.
 */
export async function expectConsistentArchive(archiveDir: string, env: string): Promise<Set<string>> {
  Checkpoint.parse(JSON.parse(await readFile(join(archiveDir, env, '_checkpoint.json'), 'utf8')));
  const views = (await archiveLines(archiveDir, env)).map((line) => readEventView(line));
  const seen = new Set<string>();
  const duplicates: string[] = [];
  for (const key of views.map((view) => versionKey(view))) {
    if (seen.has(key)) duplicates.push(key.replace(/\u0000/g, '/'));
    seen.add(key);
  }
  if (duplicates.length > 0) throw new Error(`event versions archived twice: ${duplicates.join(', ')}`);
  return new Set(views.map((view) => view.id));
}

/** A small valid dashboard file; `marker` lands in the name and in a markdown tile. */
export function dashboardYaml(name: string, marker = 'v1'): string {
  return [
    'dashboardMetadata:',
    `  name: ${name} ${marker}`,
    '  owner: team@example.com',
    'tiles:',
    '  - name: Notes',
    '    tileType: MARKDOWN',
    '    bounds: { top: 0, left: 0, width: 304, height: 152 }',
    `    markdown: "${marker}"`,
    '',
  ].join('\n');
}

/** `TOKEN_SHAPE` of src/lib/logger.ts: anything that looks like a token in output is a leak. */
export const TOKEN_LIKE = /dt0c01\.[A-Za-z0-9]+\.[A-Za-z0-9]+/;
