import { readFileSync } from 'node:fs';

/** The pids of `pid` and every process below it (Linux /proc; a process gone meanwhile is left out). */
function processTree(pid: number): number[] {
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

function rssKb(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Samples the summed RSS of a process and all its descendants until stopped: a command that relaunches itself (or
 * starts workers) is measured as a whole, not as its launcher. The peak is of the samples, so a spike shorter than
 * `everyMs` can be missed; the processes' own VmHWM cannot be summed (their peaks need not coincide).
 */
export function sampleTreeMemory(pid: number, everyMs = 50): { stop(): { peakRssMb: number } } {
  let peakKb = 0;
  const sample = (): void => {
    peakKb = Math.max(peakKb, processTree(pid).reduce((sum, p) => sum + rssKb(p), 0));
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
