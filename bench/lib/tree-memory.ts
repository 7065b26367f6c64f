import { readFileSync } from 'node:fs';

/** The pids of `pid` and every process below it (Linux /proc; a process gone meanwhile is left out). */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    try {
      for (const task of readFileSync(`/proc/${tree[i]}/task/${tree[i]}/children`, 'utf8').split(' ')) {
        if (task.trim() !== '') tree.push(Number(task));
      }
    } catch {
      // Exited between two reads: its children, if any, were re-parented and are not this tree's any more.
    }
  }
  return tree;
}

/** One line of `/proc/<pid>/status` in kB; 0 for a process gone meanwhile. */
function statusKb(pid: number, key: 'VmRSS' | 'VmHWM'): number {
  try {
    return Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

const treeKb = (pid: number, key: 'VmRSS' | 'VmHWM'): number => processTree(pid).reduce((sum, p) => sum + statusKb(p, key), 0);

export interface ProcMemory {
  /** Resident memory now, summed over the process and every process below it. */
  rssMb: number;
  /**
   * Each process's own peak (Linux VmHWM), summed: an upper bound of the tree's peak, since the peaks need not
   * coincide (a launcher's is small and early, so in practice it is the server's own).
   */
  peakRssMb: number;
}

/**
 * A process's resident memory from /proc, which counts native memory the JS heap numbers miss, over its whole
 * tree: `dashcd serve` started as a user starts it is a launcher and its child, and the figure is both.
 */
export function readTreeMemory(pid: number): ProcMemory {
  return { rssMb: treeKb(pid, 'VmRSS') / 1024, peakRssMb: treeKb(pid, 'VmHWM') / 1024 };
}

/**
 * Samples the summed RSS of a process and all its descendants until stopped: a command that relaunches itself (or
 * starts workers) is measured as a whole, not as its launcher. The peak is of the samples, so a spike shorter than
 * `everyMs` can be missed; the processes' own VmHWM cannot be summed (their peaks need not coincide).
 */
export function sampleTreeMemory(pid: number, everyMs = 50): { stop(): { peakRssMb: number } } {
  let peakKb = 0;
  const sample = (): void => {
    peakKb = Math.max(peakKb, treeKb(pid, 'VmRSS'));
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return { peakRssMb: peakKb / 1024 };
    },
  };
}
