import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { readTreeMemory } from '../../../bench/lib/tree-memory.js';

/** A process's own resident memory, as the bench read it before it summed trees. */
const ownRssMb = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;

/** Node that holds 64 MB resident, starts a child doing the same, and prints its child's pid once both hold it. */
const LAUNCHER = `
const { spawn } = require('node:child_process');
const hold = Buffer.alloc(64 * 1024 * 1024, 1);
const child = spawn(process.execPath, ['-e', "globalThis.hold = Buffer.alloc(64 * 1024 * 1024, 1); console.log('held'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'inherit'] });
child.stdout.once('data', () => console.log(child.pid));
process.on('SIGTERM', () => { child.kill(); process.exit(0); });
setInterval(() => hold[0]++, 1000);
`;

describe.runIf(process.platform === 'linux')('bench memory of a process tree', () => {
  it('sums a launcher and the child it started, as `dashcd serve` relaunched is both', async () => {
    const launcher = spawn(process.execPath, ['-e', LAUNCHER], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [line] = (await once(createInterface({ input: launcher.stdout }), 'line')) as [string];
      const childPid = Number(line);
      const pid = launcher.pid ?? -1;
      const tree = readTreeMemory(pid);
      // Each holds 64 MB of its own: the tree is both, not the launcher alone.
      expect(tree.rssMb).toBeGreaterThanOrEqual(ownRssMb(pid) + 60);
      expect(tree.rssMb).toBeGreaterThanOrEqual(ownRssMb(childPid) + 60);
      expect(tree.peakRssMb).toBeGreaterThanOrEqual(tree.rssMb);
    } finally {
      const exited = once(launcher, 'exit');
      launcher.kill('SIGTERM');
      await exited;
    }
  });

  it('reads a process that is gone as holding nothing, not as an error', () => {
    expect(readTreeMemory(2 ** 22 + 1)).toEqual({ rssMb: 0, peakRssMb: 0 });
  });
});
