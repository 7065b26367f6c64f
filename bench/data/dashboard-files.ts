import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { flushDirtyPages } from '../lib/flush-dirty-pages.js';
import { dashboardId, dashboardYaml, generateDashboard, TEAMS } from './dashboards.js';
import { platformDashboardYaml } from './platform-dashboards.js';

export interface DashboardSetOptions {
  seed: number;
  count: number;
  /** Write each file's `id` (pinned) instead of letting dashcd derive it from the path. */
  pinIds?: boolean;
}

/**
 * Writes `count` YAML files under `dir` (`text(i)` the i-th), spread over team folders as a real repository has them,
 * and flushes them to disk (a 20,000-file set is ~300 MB) before a figure measures anything over them.
 */
async function writeFileSet(dir: string, count: number, text: (i: number) => string): Promise<string[]> {
  for (const folder of TEAMS) await mkdir(join(dir, folder), { recursive: true });
  const files: string[] = [];
  const batch: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const file = join(dir, TEAMS[i % TEAMS.length] ?? 'misc', `dashboard-${String(i).padStart(5, '0')}.yaml`);
    files.push(file);
    batch.push(writeFile(file, text(i)));
    if (batch.length >= 64) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
  await flushDirtyPages();
  return files;
}

/** The seed's first `count` classic dashboards. */
export function writeDashboardSet(dir: string, { seed, count, pinIds = false }: DashboardSetOptions): Promise<string[]> {
  return writeFileSet(dir, count, (i) => {
    const dashboard = generateDashboard(seed, i);
    return dashboardYaml(pinIds ? { id: dashboardId(seed, i), ...dashboard } : dashboard);
  });
}

/** The seed's first `count` platform dashboards, as pull writes them (ids pinned in `document.id`). */
export function writePlatformDashboardSet(dir: string, { seed, count }: Omit<DashboardSetOptions, 'pinIds'>): Promise<string[]> {
  return writeFileSet(dir, count, (i) => platformDashboardYaml(seed, i));
}
