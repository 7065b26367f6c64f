import { join, resolve } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../lib/logger.js';
import { followsRef, type Follow } from '../source/follow.js';
import type { GitCredentials } from '../source/git-credentials.js';
import { openGitSource, type GitSource } from '../source/git-source.js';
import type { DaemonStatus } from './daemon-status.js';
import { followRepository, type RepositoryFollower } from './follow-repository.js';
import { gitHookHandler } from './git-hook-route.js';
import { SourceStatus } from './source-status.js';

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
}

export interface RepoFollowing {
  /** `/hooks/git`, mounted on the daemon's endpoint. */
  hook(req: IncomingMessage, res: ServerResponse): boolean;
  /** The pass source and `/status` block; call once the endpoint (and so the metrics' env label) is known. */
  attach(status: DaemonStatus, env: string): SourceStatus;
  /** Starts the fetch loop; `onNewRevision` requests a full reconcile. */
  start(onNewRevision: () => void, signal: AbortSignal): RepositoryFollower;
}

/** Opens the mirror under `<data dir>/git` (before anything listens: a broken data dir fails the start). */
export async function openRepoFollowing(repo: RepoOptions, deps: { cwd: string; dataDir: string; log: Logger }): Promise<RepoFollowing> {
  const log = deps.log.child({ component: 'git', repo: repo.url });
  const source: GitSource = await openGitSource({
    url: repo.url,
    follow: repo.follow,
    root: join(resolve(deps.cwd, deps.dataDir), 'git'),
    log,
    ...(repo.credentials ? { credentials: repo.credentials } : {}),
  });
  let follower: RepositoryFollower | undefined;
  let state: SourceStatus | undefined;
  return {
    hook: gitHookHandler({
      secret: repo.webhookSecret,
      follows: (ref) => followsRef(repo.follow, ref),
      fetchNow: (reason) => follower?.fetchNow(reason),
      log: deps.log,
    }),
    attach(status, env) {
      state = new SourceStatus({ repo: repo.url, follow: repo.follow, path: repo.path, env, skipInvalid: repo.skipInvalid }, status.metrics);
      status.source = state;
      return state;
    },
    start(onNewRevision, signal) {
      if (!state) throw new Error('attach() before start()');
      follower = followRepository({ source, state, fetchMs: repo.fetchMs, log, signal, onNewRevision });
      return follower;
    },
  };
}
