import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { describe, expect, it, onTestFinished } from 'vitest';
import { chooseCorePinning, hasTaskset, pinTree, unpinTree } from '../../../bench/lib/cpu-pinning.js';
import { describeLoad } from '../../../bench/lib/report.js';
import { waitFor } from '../../helpers/wait.js';

/** The CPUs each thread of `pid` may run on, as /proc lists them (`0`, `0-1`). */
function allowedCpus(pid: number): string[] {
  const threads = execFileSync('ls', [`/proc/${pid}/task`], { encoding: 'utf8' }).trim().split('\n');
  return threads.map((tid) => /^Cpus_allowed_list:\s+(\S+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1] ?? '');
}

describe('where a load run puts the server and wrk', () => {
  it('halves the cores between them where taskset is there, and says why not where it is not', () => {
    expect(chooseCorePinning(1)).toEqual({ why: 'one core: the server and wrk share it' });
    if (hasTaskset()) {
      expect(chooseCorePinning(2)).toEqual({ serverCpus: '0', loadCpus: '1' });
      expect(chooseCorePinning(8)).toEqual({ serverCpus: '0-3', loadCpus: '4-7' });
      expect(chooseCorePinning(3)).toEqual({ serverCpus: '0', loadCpus: '1-2' });
    } else {
      expect(chooseCorePinning(2)).toEqual({ why: 'no taskset (util-linux) on this machine: the scheduler places the server and wrk' });
    }
  });

  it('pins every thread of a process and of its child, and gives them every core back', async () => {
    if (!hasTaskset() || availableParallelism() < 2) {
      expect(chooseCorePinning()).toHaveProperty('why');
      return;
    }
    // A launcher and its child, as `dashcd serve` runs: the child serves.
    const launcher = spawn(process.execPath, ['-e', "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
    onTestFinished(async () => {
      execFileSync('pkill', ['-P', String(launcher.pid)]);
      launcher.kill();
      await once(launcher, 'exit');
    });
    const pid = launcher.pid ?? -1;
    const child = await waitFor(() => Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0]) || undefined, { what: 'the launcher to start its child' });
    pinTree(pid, '0');
    for (const member of [pid, child]) expect(new Set(allowedCpus(member))).toEqual(new Set(['0']));
    unpinTree(pid);
    for (const member of [pid, child]) expect(new Set(allowedCpus(member))).toEqual(new Set([`0-${availableParallelism() - 1}`]));
  });

  it('says in the report where the runs placed them', () => {
    expect(describeLoad({ kind: 'wrk', version: 'wrk 4.1.0, 2 threads', pinning: { serverCpus: '0', loadCpus: '1' } })).toBe('Load: wrk 4.1.0, 2 threads; the server on CPU 0, wrk on CPU 1 during each load run');
    expect(describeLoad({ kind: 'wrk', version: 'wrk 4.1.0, 2 threads', pinning: { why: 'one core: the server and wrk share it' } })).toBe('Load: wrk 4.1.0, 2 threads; not pinned: one core: the server and wrk share it');
    expect(describeLoad({ kind: 'undici-worker', why: 'smoke run' })).toBe('Load: an undici pool in a worker of the bench process (smoke run)');
    expect(describeLoad(undefined)).toBe('Load: not recorded');
  });
});
