import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

/**
 * Summarises a `.cpuprofile` (from `npm run bench -- <figure> --cpu-prof`): self time by function and by file,
 * so the cause of a missed goal can be named without opening a profiler UI.
 * Usage: node dist-bench/bench/profile.js bench/results/CPU…cpuprofile [top=25]
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

function selfTimes(profile: CpuProfile): Map<number, number> {
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
  return self;
}

function where(node: ProfileNode): string {
  const url = node.callFrame.url.replace(/^file:\/\//, '');
  const short = url.includes('/node_modules/') ? `node_modules/${url.split('/node_modules/').pop() ?? ''}` : url.includes('/dist-bench/') ? url.split('/dist-bench/').pop() ?? url : basename(url) || '(native)';
  return short;
}

function top(map: Map<string, number>, total: number, n: number): string[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([key, us]) => `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`);
}

async function main(): Promise<void> {
  const [file = '', n = '25'] = process.argv.slice(2);
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const self = selfTimes(profile);
  const total = profile.endTime - profile.startTime;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const node of profile.nodes) {
    const us = self.get(node.id) ?? 0;
    const fn = `${node.callFrame.functionName || '(anonymous)'}  ${where(node)}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    byFile.set(where(node), (byFile.get(where(node)) ?? 0) + us);
  }
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s profiled\n\nSelf time by function:\n${top(byFunction, total, Number(n)).join('\n')}\n\nSelf time by file:\n${top(byFile, total, 15).join('\n')}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exitCode = 1;
});
