import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeDashboardSet } from '../data/dashboard-files.js';
import type { FigureContext } from '../lib/figure.js';

/** The seed's first `count` dashboards as YAML files with pinned ids, written once per bench run. */
export function dashboardSet(ctx: FigureContext, count: number): Promise<string> {
  return ctx.shared(`dashboards-${count}`, async (dir) => {
    ctx.progress(`writing ${count} YAML dashboards`);
    await writeDashboardSet(dir, { seed: ctx.seed, count, pinIds: true });
    return dir;
  });
}

/** Every file under `dir` with its size and mtime: two equal snapshots mean nothing was written in between. */
export async function snapshotFiles(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile()) continue;
    const path = join(e.parentPath, e.name);
    const s = await stat(path).catch(() => undefined);
    if (s) out.set(path, `${s.size}:${s.mtimeMs}`);
  }
  return out;
}

/** Files created, changed or removed between two snapshots. */
export function changedFiles(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed = [...after].filter(([path, sig]) => before.get(path) !== sig).map(([path]) => path);
  return [...changed, ...[...before.keys()].filter((path) => !after.has(path))];
}
