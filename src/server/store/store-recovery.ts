import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsyncDir, mkdirDurable } from '../../lib/durable-file.js';
import { removeWriteLeftovers } from '../../lib/write-leftovers.js';
import type { FsLayer } from '../../lib/fs-layer.js';
import type { Logger } from '../../lib/logger.js';
import { parseDashboardId } from '../../schema/ids.js';
import { loadDocument, type DashboardRecord } from './dashboard-document.js';
import type { ServedBytesCache } from './served-bytes.js';

export const DAMAGED_DIR = 'damaged';
const DASHBOARD_FILE = /^(.+)\.json$/;
/** Files read at once while loading; enough to overlap I/O without opening thousands of descriptors. */
const LOAD_CONCURRENCY = 16;

export interface RecoveryDeps {
  readonly dir: string;
  readonly fs: FsLayer;
  readonly log: Logger;
  readonly now: () => number;
  readonly clusterVersion: string;
  readonly cache: ServedBytesCache;
}

/**
 * Loads every dashboard file of one store directory. Leftovers of interrupted writes (temp files) are removed;
 * files that are empty, truncated or not a valid dashboard are moved to `damaged/` and logged, so the store starts
 * and never serves half a document.
 */
export async function loadStoreDir(deps: RecoveryDeps): Promise<DashboardRecord[]> {
  await mkdirDurable(deps.dir, deps.fs);
  await removeWriteLeftovers(deps.dir, deps.log, deps.fs);
  const candidates = (await readdir(deps.dir, { withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => entry.name);
  const records: DashboardRecord[] = [];
  for (let i = 0; i < candidates.length; i += LOAD_CONCURRENCY) {
    const batch = candidates.slice(i, i + LOAD_CONCURRENCY);
    const loaded = await Promise.all(batch.map((name) => loadFile(deps, name)));
    for (const record of loaded) if (record) records.push(record);
  }
  return records;
}

async function loadFile(deps: RecoveryDeps, name: string): Promise<DashboardRecord | undefined> {
  const file = join(deps.dir, name);
  const stem = DASHBOARD_FILE.exec(name)?.[1];
  const id = stem === undefined ? undefined : parseDashboardId(stem);
  if (!id || id !== stem) {
    deps.log.warn({ file }, 'ignored a file that is not named <dashboard-id>.json');
    return undefined;
  }
  const loaded = loadDocument(id, await readFile(file, 'utf8'), deps.clusterVersion, deps.cache);
  if (loaded.ok) return loaded.record;
  const moved = await setAside(deps, name);
  deps.log.error({ file, movedTo: moved, reason: loaded.reason }, 'damaged dashboard file set aside, not served');
  return undefined;
}

/** Moves a damaged file into `damaged/` under a unique name, durably, and returns its new path. */
async function setAside(deps: RecoveryDeps, name: string): Promise<string> {
  const damagedDir = join(deps.dir, DAMAGED_DIR);
  await mkdirDurable(damagedDir, deps.fs);
  const target = join(damagedDir, `${name}.${deps.now()}`);
  await deps.fs.rename(join(deps.dir, name), target);
  await fsyncDir(damagedDir, deps.fs);
  await fsyncDir(deps.dir, deps.fs);
  return target;
}
