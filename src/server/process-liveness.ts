import * as fsp from 'node:fs/promises';

/** What `/proc/<pid>/stat` tells about a process: its state letter and its start time in clock ticks. */
export interface ProcStat {
  readonly state: string;
  readonly startTicks: string;
  /** Z (zombie: exited, not yet reaped by its parent) and X (dead): the process runs no more code. */
  readonly exited: boolean;
}

/** Parses one `/proc/<pid>/stat` line; `undefined` when it is too short to hold the start time. */
export function parseProcStat(stat: string): ProcStat | undefined {
  // The command name (field 2) may contain spaces and parentheses, so fields are counted from its closing `)`.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const startTicks = fields[19]; // field 22
  if (!state || !startTicks) return undefined;
  return { state, startTicks, exited: state === 'Z' || state === 'X' };
}

/** `<boot id>:<start ticks>` and state of a process on Linux; `undefined` elsewhere or when it is gone. */
export async function processStatus(pid: number): Promise<{ identity: string; exited: boolean } | undefined> {
  try {
    const [bootId, stat] = await Promise.all([
      fsp.readFile('/proc/sys/kernel/random/boot_id', 'utf8'),
      fsp.readFile(`/proc/${pid}/stat`, 'utf8'),
    ]);
    const parsed = parseProcStat(stat);
    return parsed && { identity: `${bootId.trim()}:${parsed.startTicks}`, exited: parsed.exited };
  } catch {
    return undefined;
  }
}
