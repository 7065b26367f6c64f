import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { flushDirtyPages } from '../lib/flush-dirty-pages.js';
import { dashboardId, dashboardYaml, generateDashboard } from './dashboards.js';

export interface DashboardSetOptions {
  seed: number;
  count: number;
  /** Write each file's `id` (pinned) instead of letting dashcd derive it from the path. */
  pinIds?: boolean;
}

const FOLDERS = ['payments', 'search', 'platform', 'identity', 'mobile', 'data', 'sre', 'growth'];

/**
 * Writes `count` YAML dashboards under `dir`, spread over team folders as a real repository has them, and flushes
 * them to disk (a 20,000-file set is ~300 MB) before a figure measures anything over them.
 */
export async function writeDashboardSet(dir: string, { seed, count, pinIds = false }: DashboardSetOptions): Promise<string[]> {
  for (const folder of FOLDERS) await mkdir(join(dir, folder), { recursive: true });
  const files: string[] = [];
  const batch: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const dashboard = generateDashboard(seed, i);
    const body = pinIds ? { id: dashboardId(seed, i), ...dashboard } : dashboard;
    const file = join(dir, FOLDERS[i % FOLDERS.length] ?? 'misc', `dashboard-${String(i).padStart(5, '0')}.yaml`);
    files.push(file);
    batch.push(writeFile(file, dashboardYaml(body)));
    if (batch.length >= 64) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await flushDirtyPages();
  return files;
}
