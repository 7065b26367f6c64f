import { execFileSync } from 'node:child_process';
import { arch, cpus, loadavg, platform, release, totalmem } from 'node:os';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
  kernel: string;
  uvThreadpoolSize: number;
  gitCommit: string;
  gitDirty: boolean;
  /** 1-minute load average when the run started: other work on the machine shows up as spread in the runs. */
  loadAverageAtStart: number;
}

function git(args: readonly string[]): string {
  try {
    return execFileSync('git', [...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpus: list.length,
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    memoryGb: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    platform: `${platform()}-${arch()}`,
    kernel: release(),
    uvThreadpoolSize: Number(process.env['UV_THREADPOOL_SIZE'] ?? 4),
    gitCommit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
    gitDirty: git(['status', '--porcelain', '--untracked-files=no']) !== '',
    loadAverageAtStart: Math.round((loadavg()[0] ?? 0) * 100) / 100,
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB RAM, Node ${m.node}, ${m.platform} (kernel ${m.kernel}), commit ${m.gitCommit}${m.gitDirty ? ' (dirty)' : ''}, load average ${m.loadAverageAtStart} at start`;
}
