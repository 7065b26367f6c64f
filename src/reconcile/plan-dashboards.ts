import { readFile, stat } from 'node:fs/promises';
import { MAX_SOURCE_BYTES } from '../schema/limits.js';
import { resolve } from 'node:path';
import type { PruneLimit } from '../plan/prune-guard.js';
import { idPosition } from '../desired/locate-problems.js';
import type { ApiClient } from '../client/api-client.js';
import type { ProjectConfig } from '../config/project-config.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import type { DesiredCache, DesiredResult } from '../desired/load-desired.js';
import type { Logger } from '../lib/logger.js';
import { assemblePlan, type Plan, type PlanChange, type TrashHolder } from '../plan/build-plan.js';
import { compareRules } from './compare-rules.js';
import { loadEnvironmentState, loadFolderState, type CommitSource, type DesiredState } from './desired-state.js';
import { withEarlyPlans } from './early-plans.js';
import { planAgainstLive, type EarlyChanges } from './plan-against-live.js';

export interface PlanContext {
  /** The dashboards folder, relative to `cwd` or absolute. */
  dir: string;
  cwd: string;
  api: ApiClient;
  targetLabel: string;
  log: Logger;
  concurrency: number;
  signal?: AbortSignal;
  /** Parsed files by content hash: a long-running caller (the daemon) re-reads only what changed. */
  cache?: DesiredCache;
  /** Worker threads parsing beside this one (loadDesired's `workers`); default: by the number of files. */
  workers?: number;
  /** The commit being read: see {@link CommitSource}. */
  git?: CommitSource;
  /** Unknown keys are errors (`--strict`); `strict: true` in dashcd.yaml has the same effect. */
  strict?: boolean;
}

export type PlanDashboardsResult =
  | { kind: 'invalid'; diagnostics: Diagnostic[]; desired?: DesiredResult }
  | { kind: 'planned'; plan: Plan; desired: DesiredResult; config: ProjectConfig; diagnostics: Diagnostic[] };

export interface PlanOptions {
  /** Limit the pass to these files (relative to cwd); a partial pass never reports orphans. */
  only?: readonly string[];
  /**
   * Plan the valid files even when others are invalid (the daemon: one bad file must not stop the rest). Orphans
   * are then not reported, since an invalid file's dashboard would look like one.
   */
  tolerateInvalid?: boolean;
  /** Delete owned orphans; undefined: as `prune` in dashcd.yaml says. Never in a partial pass. */
  prune?: boolean | undefined;
  /** Most deletions allowed; undefined: `maxDelete` in dashcd.yaml, else DEFAULT_MAX_DELETE. */
  maxDelete?: MaxDelete | undefined;
}

/**
 * `--max-delete`: a number replaces dashcd.yaml's `maxDelete`; `{ atMost }` only bounds it (a daemon following a
 * repository, whose committers write dashcd.yaml: the file's value, or the default when it sets none, never past it).
 */
export type MaxDelete = number | { readonly atMost: number };

export const DEFAULT_MAX_DELETE = 5;

/** The most deletions a pass may make, from `--max-delete` (or the operator's ceiling) and dashcd.yaml, and which set it. */
export function maxDeleteOf(given: MaxDelete | undefined, fromFile: number | undefined): PruneLimit {
  if (typeof given === 'number') return { maxDelete: given, from: 'flag' };
  const own: PruneLimit = fromFile === undefined ? { maxDelete: DEFAULT_MAX_DELETE, from: 'default' } : { maxDelete: fromFile, from: 'file' };
  return given === undefined || own.maxDelete <= given.atMost ? own : { maxDelete: given.atMost, from: 'ceiling' };
}

/**
 * One target's plan from the folder as it is: its desired state (desired-state.ts reads dashcd.yaml, git and the
 * files) and the target's live dashboards, compared by plan/ (the pure part). Impure: it reads all of them. Live
 * dashboards are read while the files are still being checked (early-plans.ts), within this call only.
 */
export async function planDashboards(ctx: PlanContext, options: PlanOptions = {}): Promise<PlanDashboardsResult> {
  const early = { api: ctx.api, concurrency: ctx.concurrency, signal: ctx.signal, tolerateInvalid: options.tolerateInvalid === true };
  return withEarlyPlans(early, async (files) => {
    const read = await loadFolderState(ctx, { only: options.only, cache: ctx.cache, workers: ctx.workers, files });
    return read.kind === 'invalid' ? read : planLoaded(ctx, read.state, options, files);
  });
}

/**
 * One environment of the folder against its target: its desired state (desired-state.ts: dashcd.yaml read again,
 * the files resolved for this environment), then planned as planDashboards plans. A problem the environment's
 * values cause stops all of its writes, whatever `tolerateInvalid` says; other problems are treated as there.
 */
export async function planEnvironment(name: string, ctx: PlanContext, options: PlanOptions = {}): Promise<PlanDashboardsResult> {
  const read = await loadEnvironmentState(ctx, name, options.only);
  return read.kind === 'invalid' ? read : planLoaded(ctx, read.state, options);
}

/**
 * The plan step: a desired state (desired-state.ts) against the target's live dashboards. Invalid files stop it
 * unless tolerated (then orphans are not looked for: an invalid file's dashboard would look like one).
 */
export async function planLoaded(
  ctx: Omit<PlanContext, 'dir'>,
  { project, desired, git }: DesiredState,
  options: PlanOptions = {},
  early?: EarlyChanges,
): Promise<PlanDashboardsResult> {
  const { only } = options;
  const diagnostics: Diagnostic[] = [...project.diagnostics, ...desired.diagnostics];
  if (project.diagnostics.length > 0 || (diagnostics.length > 0 && !options.tolerateInvalid)) {
    return { kind: 'invalid', diagnostics, desired };
  }
  const { config } = project;
  const partial = only !== undefined || diagnostics.length > 0;
  const prune = (options.prune ?? config.prune) ? maxDeleteOf(options.maxDelete, config.maxDelete) : undefined;
  const rules = compareRules(config);
  const live = await planAgainstLive(desired.dashboards, {
    api: ctx.api,
    rules,
    concurrency: ctx.concurrency,
    withOwned: !partial,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(early ? { early } : {}),
  });
  // A tolerant pass (the daemon's) cannot create a document whose id the trash holds: tried at every pass, it failed
  // at every pass. It is that file's problem until the document is restored (which a person decides), as plan says.
  const held = options.tolerateInvalid ? live.changes.filter(isHeldInTrash) : [];
  const changes = held.length === 0 ? live.changes : live.changes.filter((change) => !isHeldInTrash(change));
  const unwritable = [...live.refused, ...held.map((change) => ({ file: change.file, message: heldMessage(change) }))];
  // One file naming another user's private document stopped every plan of the folder, and every pass of the daemon.
  const refused: Diagnostic[] = await Promise.all(unwritable.map(async ({ file, message }) => ({ file, ...(await documentIdAt(ctx.cwd, file)), path: 'document.id', message })));
  if (refused.length > 0 && !options.tolerateInvalid) return { kind: 'invalid', diagnostics: [...diagnostics, ...refused], desired };
  const plan = assemblePlan(
    {
      desired: desired.dashboards,
      liveOwned: live.owned,
      ...rules,
      target: ctx.targetLabel,
      scope: partial ? 'partial' : 'full',
      ...(prune ? { prune } : {}),
      ...(git ? { git } : {}),
    },
    changes,
  );
  return { kind: 'planned', plan, desired, config, diagnostics: [...diagnostics, ...refused] };
}

type HeldCreate = Extract<PlanChange, { action: 'create' }> & { heldInTrash: TrashHolder };

function isHeldInTrash(change: PlanChange): change is HeldCreate {
  return change.action === 'create' && change.heldInTrash !== undefined;
}

function heldMessage({ id, heldInTrash: { name, deletedTime, deletedBy } }: HeldCreate): string {
  return `its id is held by a document in the trash (${name}, deleted ${deletedTime} by ${deletedBy}), so the service refuses a new one: dashcd trash restore ${id} brings it back and the next pass brings it up to this file; or give the file another document.id`;
}

/**
 * Where a file writes its `document.id`, read again for the rare file the target refused (0:0 if it cannot be): only
 * a regular file within the size the loader reads, as the loader took it (one swapped since is not read whole).
 */
async function documentIdAt(cwd: string, file: string): Promise<{ line: number; col: number }> {
  const path = resolve(cwd, file);
  const found = await stat(path).catch(() => undefined);
  const text = found?.isFile() && found.size <= MAX_SOURCE_BYTES ? await readFile(path, 'utf8').catch(() => undefined) : undefined;
  return text === undefined ? { line: 0, col: 0 } : idPosition(text, ['document', 'id']);
}
