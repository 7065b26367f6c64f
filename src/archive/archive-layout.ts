import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DAY_MS, dayStart } from './archived-event.js';
import { PARTITION_FILE } from './partition-writer.js';

/** The archive's folder when `--archive` names none: `events-archive/` in the project's root. */
export const DEFAULT_ARCHIVE_DIR_NAME = 'events-archive';

export interface Partition {
  readonly env: string;
  readonly day: string;
  readonly start: number;
  readonly file: string;
}

async function listDirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Environment folders of an archive (everything not starting with `_` or `.`). */
export async function listEnvironments(archiveDir: string): Promise<string[]> {
  return (await listDirs(archiveDir)).filter((name) => !name.startsWith('_') && !name.startsWith('.'));
}

/**
 * The partitions of one environment whose UTC day overlaps `[from, to]`, oldest first. Pruning uses only the
 * `date=YYYY-MM-DD` folder names: files of other days are never opened.
 */
export async function listPartitions(archiveDir: string, env: string, from = -Infinity, to = Infinity): Promise<Partition[]> {
  const envDir = join(archiveDir, env);
  const partitions: Partition[] = [];
  for (const name of await listDirs(envDir)) {
    if (!name.startsWith('date=')) continue;
    const day = name.slice('date='.length);
    const start = dayStart(day);
    if (start === undefined || start > to || start + DAY_MS <= from) continue;
    partitions.push({ env, day, start, file: join(envDir, name, PARTITION_FILE) });
  }
  return partitions;
}
