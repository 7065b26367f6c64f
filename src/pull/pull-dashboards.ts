import { readFile, stat } from 'node:fs/promises';
import { parse } from 'yaml';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import { toDashboardYaml } from '../desired/dashboard-yaml.js';
import { loadDesired, type DesiredClassic, type DesiredDashboard } from '../desired/load-desired.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { writeFileDurable } from '../lib/durable-file.js';
import { planDashboard, type ComparedKind } from '../plan/build-plan.js';
import { withoutOwnershipTag } from '../plan/ownership.js';
import type { Dashboard, LiveDashboard } from '../schema/dashboard.js';
import { shownPath } from '../lib/shown-path.js';

export type PullOutcome =
  /** `adopted`: with `adopt`, the live dashboard was not owned and now carries the ownership tag. */
  | { id: string; file: string; status: 'written' | 'up-to-date'; adopted?: true }
  | { id: string; file: string; status: 'kept-local-edits' }
  /** The file differs and uses values (templates, a `dashcd:` member): overwriting it would lose `uses`. */
  | { id: string; file: string; status: 'kept-templates'; uses: string[] }
  | { id: string; status: 'not-found' };

export interface PullOptions {
  api: ApiClient;
  /** Where new dashboards are written. */
  dir: string;
  /**
   * The dashboards folder `dir` belongs to (default `dir`): a dashboard already claimed by a file anywhere in it is
   * refreshed in that file, never copied into `dir` (two files with one id would make plan refuse the folder).
   */
  root?: string;
  cwd: string;
  ids: readonly string[];
  force: boolean;
  ownershipTag: string;
  ignore: readonly string[];
  /** The kind pulled dashboards are compared as: a file's and its live dashboard's compared forms, the ownership mark. */
  kind: ComparedKind;
  /**
   * Pulling from one environment of dashcd.yaml: the dashboards its files give there (ids as that environment
   * resolves them, values applied), and per file what its templates use. Without it the files are read as they are.
   */
  environment?: { dashboards: readonly DesiredDashboard[]; uses: ReadonlyMap<string, readonly string[]> };
  /**
   * Also mark each pulled dashboard as owned, as apply adopts (the file's content plus the ownership tag), so the
   * next plan shows it unchanged instead of `adopt`. Only dashboards whose file now means the live dashboard: one
   * kept for its local edits or values is left to plan and apply.
   */
  adopt?: boolean;
  /** Parallel GETs (default 8); files are written one at a time, in `ids` order. */
  concurrency?: number;
  signal?: AbortSignal;
}

/**
 * Writes live dashboards as YAML files. A dashboard already in the dashboards root goes to its own file, which is replaced
 * only with `force`: when it means the same as the live version it is left as it is (its comments and layout are
 * the user's), and when it differs it has local edits. A new dashboard gets a fresh file name, never one that exists.
 */
export async function pullDashboards(options: PullOptions): Promise<PullOutcome[]> {
  const dir = resolve(options.cwd, options.dir);
  // Ids derive from paths relative to the root, as plan derives them.
  const existing = options.environment?.dashboards ?? (await loadDesired({ dir: resolve(options.cwd, options.root ?? dir), cwd: options.cwd })).dashboards;
  const fileById = new Map<string, DesiredClassic>(existing.filter((d): d is DesiredClassic => d.kind === undefined).map((d) => [d.id, d]));
  const lives = await mapConcurrent(options.ids, options.concurrency ?? 8, (id) => options.api.dashboards.get(id), options.signal);
  const taken = new Set<string>();
  const outcomes: PullOutcome[] = [];
  for (const [index, id] of options.ids.entries()) {
    const live = lives[index];
    if (!live) {
      outcomes.push({ id, status: 'not-found' });
      continue;
    }
    const pulled = withoutOwnershipTag(live, options.ownershipTag);
    const local = fileById.get(id.toLowerCase());
    const outcome = local ? await refreshFile(local, pulled, options) : await writeNewFile(dir, pulled, taken, options);
    if (!options.adopt || (outcome.status !== 'written' && outcome.status !== 'up-to-date')) {
      outcomes.push(outcome);
      continue;
    }
    // The file's body as it now stands: the live dashboard's when written, else the file's own (it means the same).
    const body = local === undefined || outcome.status === 'written' ? (parse(toDashboardYaml(pulled)) as Dashboard) : local.body;
    outcomes.push(await adoptPulled(outcome, body, live, options));
  }
  return outcomes;
}

/**
 * Writes what apply would write to adopt the dashboard (planDashboard's `adopt`: the file's body plus the tag), so
 * ownership is recorded where apply records it, on the live dashboard.
 */
async function adoptPulled(outcome: Extract<PullOutcome, { status: 'written' | 'up-to-date' }>, body: Dashboard, live: LiveDashboard, options: PullOptions): Promise<PullOutcome> {
  const change = planDashboard({ id: outcome.id, file: outcome.file, name: body.dashboardMetadata.name, body }, live, { ownershipTag: options.ownershipTag, ignore: options.ignore, kind: options.kind });
  if (change.action !== 'adopt') return outcome;
  await options.api.dashboards.put(change.id, change.desired);
  return { ...outcome, adopted: true };
}

async function refreshFile(local: DesiredClassic, pulled: LiveDashboard, options: PullOptions): Promise<PullOutcome> {
  const { id, file } = local;
  const path = resolve(options.cwd, file);
  const same = isDeepStrictEqual(
    options.kind.comparedForm(local.body, options.ignore),
    options.kind.comparedForm(pulled, options.ignore),
  );
  const uses = options.environment?.uses.get(file) ?? [];
  // A templated file meaning the same as live is left alone even with --force: rewriting it would only lose values.
  if (uses.length > 0 && (same || !options.force)) return same ? { id, file, status: 'up-to-date' } : { id, file, status: 'kept-templates', uses: [...uses] };
  if (!options.force) return { id, file, status: same ? 'up-to-date' : 'kept-local-edits' };
  const yaml = toDashboardYaml(pulled);
  if ((await readFile(path, 'utf8')) === yaml) return { id, file, status: 'up-to-date' };
  await writeFileDurable(path, yaml);
  return { id, file, status: 'written' };
}

async function writeNewFile(dir: string, pulled: LiveDashboard, taken: Set<string>, options: PullOptions): Promise<PullOutcome> {
  const path = await freeFileName(dir, pulled, taken);
  taken.add(path);
  await writeFileDurable(path, toDashboardYaml(pulled));
  return { id: String(pulled.id), file: shownPath(options.cwd, path), status: 'written' };
}

/**
 * `CPU & memory (prod)` → `cpu-memory-prod.yaml`; a name that is taken (on disk, even by a file that is not a valid
 * dashboard, or earlier in this pull) gets the id's first block, then a counter.
 */
async function freeFileName(dir: string, dashboard: LiveDashboard, taken: ReadonlySet<string>): Promise<string> {
  const slug =
    dashboard.dashboardMetadata.name
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'dashboard';
  const block = String(dashboard.id ?? '').slice(0, 8);
  for (let n = 0; ; n++) {
    const path = join(dir, n === 0 ? `${slug}.yaml` : n === 1 ? `${slug}-${block}.yaml` : `${slug}-${block}-${n}.yaml`);
    if (!taken.has(path) && !(await exists(path))) return path;
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
