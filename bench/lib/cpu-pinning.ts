import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { processTree } from './tree-memory.js';

/**
 * Where a load run puts the server and wrk: the server's whole process tree (every thread: V8's and libuv's too) on
 * the first half of the cores, wrk on the other half. Left to the scheduler on two cores, the two shared both:
 * twelve GET runs against one unchanged server and its bare baseline, alternating, read 0.55–1.09× the baseline per
 * server CPU-second; pinned, six read 0.76–0.85×. Both servers of a figure, and both builds of a compare sitting,
 * run pinned alike. `why` says why a run is not pinned (one core, or no `taskset` on this machine).
 */
export type CorePinning = { serverCpus: string; loadCpus: string } | { why: string };

export function chooseCorePinning(cores = availableParallelism()): CorePinning {
  if (cores < 2) return { why: 'one core: the server and wrk share it' };
  if (!hasTaskset()) return { why: 'no taskset (util-linux) on this machine: the scheduler places the server and wrk' };
  const half = Math.floor(cores / 2);
  return { serverCpus: cpuRange(0, half - 1), loadCpus: cpuRange(half, cores - 1) };
}

/** `0`, or `2-3`: taskset's list form. */
function cpuRange(first: number, last: number): string {
  return first === last ? String(first) : `${first}-${last}`;
}

/** Whether `taskset` (util-linux) runs here. */
export function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Puts every thread of `pid` and of every process below it on `cpus` (a relaunched server serves from a child). */
export function pinTree(pid: number, cpus: string): void {
  for (const member of processTree(pid)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(member)], { stdio: 'ignore' });
    } catch {
      // Exited meanwhile: nothing of it is left to place.
    }
  }
}

/** Every core again, for what the figure does between load runs (seeding, a restart, the next lane's set-up). */
export function unpinTree(pid: number, cores = availableParallelism()): void {
  pinTree(pid, cpuRange(0, cores - 1));
}
