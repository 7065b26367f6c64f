import { readFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import { toDashboardYaml } from '../desired/dashboard-yaml.js';
import { loadDesired, type DesiredDashboard } from '../desired/load-desired.js';
import { writeFileDurable } from '../lib/durable-file.js';
import { normalizeForCompare } from '../plan/normalize.js';
import { withoutOwnershipTag } from '../plan/ownership.js';
import type { Dashboard } from '../schema/dashboard.js';

export type PullOutcome =
  | { id: string; file: string; status: 'written' | 'up-to-date' }
  | { id: string; file: string; status: 'kept-local-edits' }
  | { id: string; status: 'not-found' };

export interface PullOptions {
  api: ApiClient;
  dir: string;
  cwd: string;
  ids: readonly string[];
  force: boolean;
  ownershipTag: string;
  ignore: readonly string[];
}

/**
 * Writes live dashboards as YAML files. A dashboard already in the folder is written to its own file; that file is
 * replaced only when it equals the live version (nothing to lose) or with `force`, so local edits are never lost.
 */
export async function pullDashboards(options: PullOptions): Promise<PullOutcome[]> {
  const dir = resolve(options.cwd, options.dir);
  const existing = await loadDesired({ dir, cwd: options.cwd });
  const fileById = new Map<string, DesiredDashboard>(existing.dashboards.map((d) => [d.id, d]));
  const usedNames = new Set(existing.dashboards.map((d) => resolve(options.cwd, d.file)));
  const outcomes: PullOutcome[] = [];
  for (const id of options.ids) {
    const live = await options.api.dashboards.get(id);
    if (!live) {
      outcomes.push({ id, status: 'not-found' });
      continue;
    }
    const local = fileById.get(id.toLowerCase());
    const yaml = toDashboardYaml(withoutOwnershipTag(live, options.ownershipTag));
    if (local) {
      const file = resolve(options.cwd, local.file);
      const same = isDeepStrictEqual(
        normalizeForCompare(local.body, { ignore: options.ignore }),
        normalizeForCompare(withoutOwnershipTag(live, options.ownershipTag), { ignore: options.ignore }),
      );
      if (same && (await readFile(file, 'utf8')) === yaml) outcomes.push({ id, file: local.file, status: 'up-to-date' });
      else if (!same && !options.force) outcomes.push({ id, file: local.file, status: 'kept-local-edits' });
      else {
        await writeFileDurable(file, yaml);
        outcomes.push({ id, file: local.file, status: same ? 'up-to-date' : 'written' });
      }
      continue;
    }
    const file = freeFileName(dir, live, usedNames);
    usedNames.add(file);
    await writeFileDurable(file, yaml);
    outcomes.push({ id, file: relative(options.cwd, file).split('\\').join('/'), status: 'written' });
  }
  return outcomes;
}

/** `CPU & memory (prod)` → `cpu-memory-prod.yaml`; a taken name gets the id's first block appended. */
function freeFileName(dir: string, dashboard: Dashboard, used: ReadonlySet<string>): string {
  const slug =
    dashboard.dashboardMetadata.name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'dashboard';
  const plain = join(dir, `${slug}.yaml`);
  if (!used.has(plain)) return plain;
  return join(dir, `${slug}-${String(dashboard.id ?? '').slice(0, 8)}.yaml`);
}
