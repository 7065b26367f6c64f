import { readFileSync } from 'node:fs';
import { runLoad, type LoadResult, type LoadSpec } from '../load/run-load.js';
import { runWrk } from '../load/wrk.js';
import type { FigureContext } from '../lib/figure.js';
import type { Measurement } from '../lib/repeat.js';
import { processTree } from '../lib/tree-memory.js';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU seconds (user + system, every thread) a process has used so far; 0 for one gone meanwhile. */
function ownCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return 0;
  }
}

/** The same over the process and every process below it: `dashcd serve` as a user starts it serves from a child. */
const cpuSeconds = (pid: number): number => processTree(pid).reduce((sum, p) => sum + ownCpuSeconds(p), 0);

/** Busy and total CPU time of the whole machine so far, in clock ticks (/proc/stat; idle and iowait count as idle). */
function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, n) => sum + n, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: total - idle, total };
}

/**
 * One load run as a measurement, from the run's load generator (wrk, or the undici worker where wrk is missing);
 * a run with failed requests fails the figure (a fast error is not a result). `serverCpu` is the cores the server
 * (its process tree) used over the run: near 1.0 with an idle main thread elsewhere means the server, not the
 * generator, is what limits the rate. `perCpuSecond` is requests answered per CPU-second the server used: the rate
 * it reaches with a core to itself, as a load generator on an otherwise idle machine measures it, which a run that
 * the generator or other work on the machine limited does not show in its req/s. `machineBusy` is the share of all
 * the machine's cores busy over the run (server, load generator, kernel and anything else): near 1 means the
 * machine, not the server's design, limits the rate.
 */
export async function loadMeasurement(ctx: Pick<FigureContext, 'loadGenerator'>, spec: LoadSpec, serverPid: number): Promise<Measurement> {
  const cpuBefore = cpuSeconds(serverPid);
  const machineBefore = machineTicks();
  const started = performance.now();
  const result: LoadResult = ctx.loadGenerator.kind === 'wrk' ? await runWrk(spec) : await runLoad(spec);
  const cpuSpent = cpuSeconds(serverPid) - cpuBefore;
  const serverCpu = cpuSpent / ((performance.now() - started) / 1000);
  const machineAfter = machineTicks();
  const machineBusy = (machineAfter.busy - machineBefore.busy) / Math.max(1, machineAfter.total - machineBefore.total);
  if (result.errors > 0) {
    throw new Error(`${result.errors} of ${result.requests} ${spec.method} requests failed (${JSON.stringify(result.failures)}): ${result.failureExample ?? ''}`);
  }
  if (result.requests === 0) throw new Error(`no ${spec.method} request completed within ${spec.durationMs} ms`);
  return { rps: result.rps, perCpuSecond: result.requests / Math.max(1e-9, cpuSpent), p50: result.latencyMs.p50, p99: result.latencyMs.p99, max: result.latencyMs.max, requests: result.requests, serverCpu, machineBusy };
}
