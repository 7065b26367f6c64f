import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { withTempDirIn } from '../lib/temp-dir.js';
import type { LoadResult, LoadSpec } from './load-spec.js';

const run = promisify(execFile);

/**
 * wrk (C, its own threads, Debian package `wrk`) as the HTTP load generator: an undici pool in a worker of the
 * bench process spends more CPU per request than the server it measures, so on two cores it capped the bare
 * baseline as much as the figure. wrk takes whole seconds only.
 */
export const WRK_THREADS = 2;

/** Long-bracket level no JSON body or path contains, so bodies go into the script verbatim. */
const LONG = '=====';
const LUA_ESCAPES: Record<string, string> = { '\\': '\\\\', '"': '\\"', '\r': '\\r', '\n': '\\n', '\0': '\\000' };
const luaString = (s: string): string => {
  // A long bracket turns every line ending into "\n" and drops a leading one: multipart's CRLFs need escapes.
  if (/[\r\n]/.test(s)) return `"${s.replace(/[\\"\r\n\0]/g, (c) => LUA_ESCAPES[c] ?? c)}"`;
  if (s.includes(`]${LONG}]`)) throw new Error('a request body contains the Lua long-bracket terminator');
  return `[${LONG}[${s}]${LONG}]`;
};

/**
 * The request script: request n of thread t goes to paths[(t + n·threads) mod #paths] with bodies[same mod #bodies],
 * as the undici generator does; `done` prints one JSON line with the tally and the latency quantiles (µs).
 */
export function wrkScript(spec: Pick<LoadSpec, 'method' | 'paths' | 'headers' | 'bodies'>): string {
  const list = (items: readonly string[]): string => `{${items.map(luaString).join(',\n')}}`;
  const headers = Object.entries(spec.headers).map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`).join(',');
  return `
local paths = ${list(spec.paths)}
local bodies = ${list(spec.bodies ?? [])}
local headers = {${headers}}
local threads = 0
local n = 0
local tid = 0
function setup(thread)
  thread:set("tid", threads)
  threads = threads + 1
end
function init(args)
  tid = tonumber(tid) or 0
end
function request()
  local i = tid + n * ${WRK_THREADS}
  n = n + 1
  local body = nil
  if #bodies > 0 then body = bodies[(i % #bodies) + 1] end
  return wrk.format(${luaString(spec.method)}, paths[(i % #paths) + 1], headers, body)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRK-RESULT {"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%f}\\n',
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
`;
}

interface WrkTally {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Reads the `done` line; wrk's own summary above it is ignored. */
export function parseWrkOutput(stdout: string): LoadResult {
  const line = /^WRK-RESULT (\{.*\})$/m.exec(stdout)?.[1];
  if (!line) throw new Error(`wrk printed no result line: ${stdout.slice(-500)}`);
  const t = JSON.parse(line) as WrkTally;
  const failures: Record<string, number> = {};
  for (const kind of ['connect', 'read', 'write', 'status', 'timeout'] as const) if (t[kind] > 0) failures[kind] = t[kind];
  const errors = Object.values(failures).reduce((a, b) => a + b, 0);
  const ms = (us: number): number => us / 1000;
  const elapsedMs = ms(t.durationUs);
  return {
    requests: t.requests,
    errors,
    failures,
    elapsedMs,
    rps: ((t.requests - t.status) / elapsedMs) * 1000,
    latencyMs: { count: t.requests, mean: ms(t.mean), p50: ms(t.p50), p90: ms(t.p90), p99: ms(t.p99), max: ms(t.max) },
    bytesReceived: t.bytes,
  };
}

/** One closed-loop wrk run of `spec` (maxRequests is not supported by wrk: it runs for the duration). */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  return withTempDirIn(tmpdir(), 'dashcd-wrk-', async (dir) => {
    const script = join(dir, 'load.lua');
    await writeFile(script, wrkScript(spec));
    const seconds = Math.max(1, Math.round(spec.durationMs / 1000));
    const args = ['-t', String(WRK_THREADS), '-c', String(Math.max(spec.connections, WRK_THREADS)), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, spec.origin];
    const { stdout } = await run('wrk', args, { maxBuffer: 4 << 20, timeout: (seconds + 30) * 1000 });
    return parseWrkOutput(stdout);
  });
}

async function wrkVersion(): Promise<string | undefined> {
  try {
    const { stdout, stderr } = await run('wrk', ['-v']);
    return /^wrk \S+/m.exec(`${stdout}${stderr}`)?.[0] ?? 'wrk';
  } catch (error) {
    // `wrk -v` prints its version and exits 1; a missing binary has no output.
    const out = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
    return /^wrk \S+/m.exec(out)?.[0];
  }
}

/** Finds wrk, installing Debian's package when it is missing. Returns its version, or undefined when it is not there. */
export async function ensureWrk(progress: (m: string) => void): Promise<string | undefined> {
  const found = await wrkVersion();
  if (found) return found;
  progress('wrk is not installed: apt-get install -y wrk');
  const sudo = process.getuid?.() === 0 ? [] : ['sudo', '-n'];
  const [cmd = 'apt-get', ...rest] = [...sudo, 'apt-get', 'install', '-y', 'wrk'];
  await run(cmd, rest, { timeout: 300_000 }).catch((error: unknown) => progress(`installing wrk failed: ${String(error).slice(0, 300)}`));
  return wrkVersion();
}
