import { readFileSync } from 'node:fs';
import { runLoad, type LoadResult, type LoadSpec } from '../load/run-load.js';
import { runWrk } from '../load/wrk.js';
import type { FigureContext } from '../lib/figure.js';
import type { Measurement } from '../lib/repeat.js';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** CPU seconds (user + system, every thread) a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
}

/**
 * One load run as a measurement, from the run's load generator (wrk, or the undici worker where wrk is missing);
 * a run with failed requests fails the figure (a fast error is not a result). `serverCpu` is the cores the server
 * process used over the run: near 1.0 with an idle main thread elsewhere means the server, not the generator, is
 * what limits the rate.
 */
export async function loadMeasurement(ctx: Pick<FigureContext, 'loadGenerator'>, spec: LoadSpec, serverPid: number): Promise<Measurement> {
  const cpuBefore = cpuSeconds(serverPid);
  const started = performance.now();
  const result: LoadResult = ctx.loadGenerator.kind === 'wrk' ? await runWrk(spec) : await runLoad(spec);
  const serverCpu = (cpuSeconds(serverPid) - cpuBefore) / ((performance.now() - started) / 1000);
  if (result.errors > 0) {
    throw new Error(`${result.errors} of ${result.requests} ${spec.method} requests failed (${JSON.stringify(result.failures)}): ${result.failureExample ?? ''}`);
  }
  if (result.requests === 0) throw new Error(`no ${spec.method} request completed within ${spec.durationMs} ms`);
  return { rps: result.rps, p50: result.latencyMs.p50, p99: result.latencyMs.p99, max: result.latencyMs.max, requests: result.requests, serverCpu };
}
