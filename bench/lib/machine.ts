import { execFileSync } from 'node:child_process';
import { cpus, release, totalmem, platform, arch } from 'node:os';

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
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB RAM, Node ${m.node}, ${m.platform} (kernel ${m.kernel}), commit ${m.gitCommit}${m.gitDirty ? ' (dirty)' : ''}`;
}
