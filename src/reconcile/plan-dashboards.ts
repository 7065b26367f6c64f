import { relative, resolve, sep } from 'node:path';
import type { ApiClient } from '../client/api-client.js';
import { loadProjectConfigFor, type ProjectConfig } from '../config/project-config.js';
import { readGitInfo, type GitInfo } from '../desired/git-info.js';
import { strictly } from '../desired/strict.js';
import { declaredEnvironments } from '../environments/environment.js';
import { loadDesired, type DesiredCache, type DesiredDashboard, type DesiredResult } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import type { Logger } from '../lib/logger.js';
import { assemblePlan, type CompareRules, type Plan } from '../plan/build-plan.js';
import { EarlyPlans } from './early-plans.js';
import { planAgainstLive } from './plan-against-live.js';

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
  /** The commit being read, when the caller knows it (a checkout of a followed repository has no `.git`). */
  git?: GitInfo;
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
  maxDelete?: number | undefined;
}

export const DEFAULT_MAX_DELETE = 5;

/** The read half of a reconcile: project config + desired state + live state → a plan (pure). */
export async function planDashboards(ctx: PlanContext, options: PlanOptions = {}): Promise<PlanDashboardsResult> {
  const dir = resolve(ctx.cwd, ctx.dir);
  const [project, git] = await Promise.all([loadProjectConfigFor(dir, ctx.cwd), ctx.git ?? readGitInfo(dir)]);
  // One target for files with templates would write `${{ values.x }}` literally: environments need their own loops.
  if (declaredEnvironments(project.config).length > 0) return { kind: 'invalid', diagnostics: [environmentsDeclared(project.file ?? dir, ctx.cwd)] };
  const strict = ctx.strict === true || project.config.strict === true;
  const early = project.diagnostics.length === 0 ? earlyPlansFor(ctx, project.config) : undefined;
  // However the plan ends (invalid files, a failed read, an abort), reads it did not take are abandoned.
  try {
    return await planWithEarlyReads(ctx, { dir, project, git, strict, early }, options);
  } finally {
    early?.stop();
  }
}

/** Loads the files, offering each valid one to `early` as it is checked, then plans. */
async function planWithEarlyReads(
  ctx: PlanContext,
  { dir, project, git, strict, early }: { dir: string; project: LoadedState['project']; git: GitInfo | undefined; strict: boolean; early: EarlyPlans | undefined },
  options: PlanOptions,
): Promise<PlanDashboardsResult> {
  const { only } = options;
  const loaded = await loadDesired({
    dir,
    cwd: ctx.cwd,
    ...(only ? { only: [...only] } : {}),
    ...(ctx.cache ? { cache: ctx.cache } : {}),
    ...(ctx.workers !== undefined ? { workers: ctx.workers } : {}),
    ...(early
      ? {
          onFileChecked: ({ dashboard, warned }: { dashboard: DesiredDashboard | undefined; warned: boolean }) => {
            if (dashboard !== undefined && !(strict && warned)) early.offer(dashboard);
            else if (!options.tolerateInvalid) early.stop();
          },
        }
      : {}),
  });
  const desired = strict ? strictly(loaded) : loaded;
  return planLoaded(ctx, { project, desired, git }, options, early);
}

function earlyPlansFor(ctx: PlanContext, config: ProjectConfig): EarlyPlans {
  return new EarlyPlans({ api: ctx.api, rules: compareRules(config), concurrency: ctx.concurrency, ...(ctx.signal ? { signal: ctx.signal } : {}) });
}

function compareRules(config: ProjectConfig): CompareRules {
  return { ownershipTag: config.ownershipTag, ignore: config.ignore };
}

/** A daemon that started without environments meets a commit that declares some (they are read at start). */
function environmentsDeclared(file: string, cwd: string): Diagnostic {
  const shown = relative(cwd, file).split(sep).join('/') || file;
  const message = 'dashcd.yaml declares environments, but this run reconciles one target; restart the daemon to run one loop per environment (commands: choose with --env)';
  return { file: shown, line: 0, col: 0, path: 'environments', message };
}

export interface LoadedState {
  project: { config: ProjectConfig; diagnostics: readonly Diagnostic[] };
  desired: DesiredResult;
  git: GitInfo | undefined;
}

/**
 * The rest of planDashboards once the desired state is loaded: also the path of one environment, whose desired
 * state comes from the environments stage instead of the files as they are.
 */
export async function planLoaded(
  ctx: Omit<PlanContext, 'dir' | 'cwd'>,
  { project, desired, git }: LoadedState,
  options: PlanOptions = {},
  early?: EarlyPlans,
): Promise<PlanDashboardsResult> {
  const { only } = options;
  const diagnostics: Diagnostic[] = [...project.diagnostics, ...desired.diagnostics];
  if (project.diagnostics.length > 0 || (diagnostics.length > 0 && !options.tolerateInvalid)) {
    return { kind: 'invalid', diagnostics, desired };
  }
  const { config } = project;
  const partial = only !== undefined || diagnostics.length > 0;
  const prune = (options.prune ?? config.prune) ? { maxDelete: options.maxDelete ?? config.maxDelete ?? DEFAULT_MAX_DELETE } : undefined;
  const rules = compareRules(config);
  const live = await planAgainstLive(desired.dashboards, {
    api: ctx.api,
    rules,
    concurrency: ctx.concurrency,
    withOwned: !partial,
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(early ? { early } : {}),
  });
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
    live.changes,
  );
  return { kind: 'planned', plan, desired, config, diagnostics };
}
