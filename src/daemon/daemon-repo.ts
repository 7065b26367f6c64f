import { join, posix, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { loadProjectConfigFor, PROJECT_CONFIG_FILES, type LoadProjectConfigResult } from '../config/project-config.js';
import { declaredEnvironments } from '../environments/environment.js';
import type { Logger } from '../lib/logger.js';
import { describeFollow, followsRef, type Follow } from '../source/follow.js';
import type { GitCredentials } from '../source/git-credentials.js';
import { openGitSource, type GitSource } from '../source/git-source.js';
import { SourceError } from '../source/source-error.js';
import type { DaemonStatus } from './daemon-status.js';
import { followRepository, type RepositoryFollower } from './follow-repository.js';
import { gitHookHandler } from './git-hook-route.js';
import { SourceStatus } from './source-status.js';
import { targetRefusals, type TargetGrant } from './target-allow-list.js';
import { errorMessage } from '../lib/error-message.js';
import { BUILT_IN_LIMITS, checkoutLimitRefusals, type RepositoryLimits } from './repository-limits.js';

/** `dashcd daemon --repo …`: the repository the daemon follows instead of a local folder. */
export interface RepoOptions {
  url: string;
  follow: Follow;
  /** The dashboards folder inside the repository (dashcd.yaml sits beside it, as in a local checkout). */
  path: string;
  fetchMs: number;
  credentials?: GitCredentials;
  /** DASHCD_WEBHOOK_SECRET: enables `POST /hooks/git`. */
  webhookSecret?: string;
  /** Apply a commit's valid files when others are invalid (else such a commit is not applied at all). */
  skipInvalid: boolean;
  /**
   * `--allow-target`: the only tokenEnv → target pairs a commit's dashcd.yaml may ask for; a commit asking for any
   * other is refused whole. The repository's committers are not the operator: they must not pick what leaves.
   */
  allowTargets: readonly TargetGrant[];
  /** `--max-environments`: the most environments a commit's dashcd.yaml may declare (DEFAULT_REPOSITORY_ENVIRONMENTS). */
  maxEnvironments?: number;
}

export interface RepoFollowing {
  /** `/hooks/git`, mounted on the daemon's endpoint: a push to any followed ref fetches every follower at once. */
  hook(req: IncomingMessage, res: ServerResponse): boolean;
  /**
   * dashcd.yaml as the followed ref's newest commit has it (fetched now, else the last one fetched): where a
   * daemon following a repository learns its environments. Undefined when nothing could be fetched. `refused`: why
   * the operator's --allow-target list forbids that commit (then none of its targets may be used).
   */
  projectConfig(signal: AbortSignal): Promise<(LoadProjectConfigResult & { refused: string[] }) | undefined>;
  /**
   * One reconcile loop's source: `follow` (default: the daemon's own) fetched on its own, its checkouts in the one
   * mirror of the repository; `env` labels its metrics. `onNewRevision` requests a full reconcile of that loop.
   */
  attach(status: DaemonStatus, env: string, onNewRevision: () => void, follow?: Follow): Promise<AttachedLane>;
  /** Starts every attached source's fetch loop. */
  start(signal: AbortSignal): { stopped: Promise<void> };
}

/** One reconcile loop's view of the repository: its git state, and the mirror as its fetch loop uses it. */
export interface AttachedLane {
  state: SourceStatus;
  source: GitSource;
}

interface Lane extends AttachedLane {
  onNewRevision(): void;
  /** The git log with this lane's environment: several lanes log the same commit, each for its own. */
  log: Logger;
  follower?: RepositoryFollower;
  /**
   * The commit this lane checked out last. It is recorded in `state` only once its dashcd.yaml has been read, and
   * another lane cleaning up meanwhile must not remove it; kept until this lane checks out another.
   */
  taken?: string;
}

/** What a pass reads of a commit, and so all a checkout writes: the dashboards folder and the dashcd.yaml beside it. */
export function checkoutPaths(path: string): string[] {
  const beside = posix.dirname(path);
  return [path, ...PROJECT_CONFIG_FILES.map((name) => posix.join(beside, name))];
}

/** Opens the mirror under `<data dir>/git` (before anything listens: a broken data dir fails the start). */
export async function openRepoFollowing(repo: RepoOptions, deps: { cwd: string; dataDir: string; log: Logger; limits?: RepositoryLimits }): Promise<RepoFollowing> {
  const log = deps.log.child({ component: 'git', repo: repo.url });
  const open = (follow: Follow): Promise<GitSource> =>
    openGitSource({ url: repo.url, follow, root: join(resolve(deps.cwd, deps.dataDir), 'git'), log, paths: checkoutPaths(repo.path), ...(repo.credentials ? { credentials: repo.credentials } : {}) });
  const sources = new Map<string, GitSource>([[describeFollow(repo.follow), await open(repo.follow)]]);
  const lanes: Lane[] = [];
  const refusals = (root: string): Promise<string[]> => checkoutRefusals(join(root, repo.path), root, repo.allowTargets, repo.maxEnvironments ?? DEFAULT_REPOSITORY_ENVIRONMENTS);
  // One mirror holds every lane's checkouts: each keeps what any lane still needs, not only its own.
  const needed = (): string[] => lanes.flatMap((lane) => [...lane.state.keptCommits(), ...(lane.taken ? [lane.taken] : [])]);
  const sourceFor = async (follow: Follow): Promise<GitSource> => {
    const key = describeFollow(follow);
    const known = sources.get(key) ?? (await open(follow));
    sources.set(key, known);
    return known;
  };
  return {
    hook: gitHookHandler({
      secret: repo.webhookSecret,
      follows: (ref) => lanes.some((lane) => followsRef(lane.source.follow, ref)),
      fetchNow: (reason) => lanes.forEach((lane) => lane.follower?.fetchNow(reason)),
      log: deps.log,
    }),
    async projectConfig(signal) {
      const source = await sourceFor(repo.follow);
      const revision = (await source.fetch(signal).catch(() => undefined)) ?? (await source.lastFetched(signal).catch(() => undefined));
      if (!revision) return undefined;
      const root = await source.checkout(revision, signal).catch((error: unknown) => {
        // A commit that cannot be checked out as it is (refused, or more than git's listing can hold): the daemon
        // starts, and its fetch loop reports why.
        if (error instanceof SourceError && (error.code === 'commit-refused' || error.code === 'git-failed')) return undefined;
        throw error;
      });
      if (root === undefined) return undefined;
      const project = await loadProjectConfigFor(join(root, repo.path), root);
      // Every refusal the fetch loop makes, the operator's limits too: a refused commit's environments are not started.
      const limited = await checkoutLimitRefusals(join(root, repo.path), root, deps.limits ?? BUILT_IN_LIMITS);
      return { ...project, refused: [...(await refusals(root)), ...limited] };
    },
    async attach(status, env, onNewRevision, follow = repo.follow) {
      const mirror = await sourceFor(follow);
      const state = new SourceStatus({ repo: repo.url, follow, path: repo.path, env, skipInvalid: repo.skipInvalid }, status.metrics);
      status.follow(state);
      const lane: Lane = { state, onNewRevision, source: mirror, log: log.child({ env }) };
      lane.source = {
        ...mirror,
        checkout: (revision, signal) => {
          lane.taken = revision.commit;
          return mirror.checkout(revision, signal);
        },
        retain: () => mirror.retain(needed()),
      };
      lanes.push(lane);
      return { state, source: lane.source };
    },
    start(signal) {
      for (const lane of lanes) {
        lane.follower = followRepository({ source: lane.source, state: lane.state, fetchMs: repo.fetchMs, log: lane.log, signal, onNewRevision: lane.onNewRevision, refusals, ...(deps.limits ? { limits: deps.limits } : {}) });
      }
      return { stopped: Promise.all(lanes.map((lane) => lane.follower?.stopped)).then(() => undefined) };
    },
  };
}

/**
 * How many environments a followed commit's dashcd.yaml may declare: each is a store, a queue, timers, an events
 * poller and a rendering of every file in this one process, whose descriptors and memory the operator sized, not the
 * repository's committers. Every cost of a commit is multiplied by it: 100 environments, each rendering 20 files of
 * one 900 kB value, ran the daemon out of memory at every start. The operator may raise the default with
 * `--max-environments`, up to the most.
 */
export const DEFAULT_REPOSITORY_ENVIRONMENTS = 20;
export const MAX_REPOSITORY_ENVIRONMENTS = 100;

/**
 * Why a checkout's dashcd.yaml may not be followed: more environments than the daemon starts, or targets and tokens
 * the operator has not allowed. An invalid dashcd.yaml declares nothing here (the pass refuses it as invalid); one
 * that cannot be read is refused.
 */
async function checkoutRefusals(dashboardsDir: string, root: string, grants: readonly TargetGrant[], maxEnvironments: number): Promise<string[]> {
  try {
    const project = await loadProjectConfigFor(dashboardsDir, root);
    if (project.diagnostics.length > 0) return [];
    const declared = declaredEnvironments(project.config);
    if (declared.length > maxEnvironments) return [tooManyEnvironments(declared.length, maxEnvironments)];
    return targetRefusals(declared, grants);
  } catch (error) {
    return [`dashcd.yaml could not be read to check its targets: ${errorMessage(error)}`];
  }
}

function tooManyEnvironments(count: number, most: number): string {
  return `dashcd.yaml declares ${count} environments; this daemon following a repository starts at most ${most} (its operator's --max-environments)`;
}
