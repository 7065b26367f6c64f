import { existsSync } from 'node:fs';
import { isAbsolute, normalize, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_REPOSITORY_ENVIRONMENTS, MAX_REPOSITORY_ENVIRONMENTS, type RepoOptions } from '../daemon/daemon-repo.js';
import { parseTargetGrant, type TargetGrant } from '../daemon/target-allow-list.js';
import { followProblem, type Follow } from '../source/follow.js';
import { checkRepositoryUrl, type GitCredentials } from '../source/git-credentials.js';
import { SourceError } from '../source/source-error.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagSpec, type FlagValues } from './command.js';
import { UsageError } from './exit-codes.js';
import { durationFlag, intFlag } from './int-flag.js';

/** The daemon's flags for following a repository (docs/gitops-controller.md, "Running as a GitOps controller"). */
export const repoFlags: Record<string, FlagSpec> = {
  repo: { type: 'string', description: 'Follow this git repository (https, ssh, file:// or a local path) instead of watching --dir', valueName: 'url' },
  branch: { type: 'string', description: 'With --repo: the branch to follow (default: main)', valueName: 'name' },
  'tag-pattern': { type: 'string', description: "With --repo: follow the highest-versioned tag matching this glob ('release-*')", valueName: 'glob' },
  path: { type: 'string', description: 'With --repo: the dashboards folder inside the repository, dashcd.yaml beside it (default: dashboards)', valueName: 'path' },
  fetch: { type: 'string', description: 'With --repo: fetch interval, at least 1s; a webhook fetches at once (default: 60s)', valueName: 'duration' },
  'skip-invalid': { type: 'boolean', description: 'With --repo: apply the valid files of a commit that has invalid ones (default: apply none of it)' },
  'ownership-tag': {
    type: 'string',
    description: "With --repo: the ownership tag (prune deletes only what carries it); a commit whose dashcd.yaml has another is refused (default: managed-by:dashcd)",
    valueName: 'tag',
  },
  'max-environments': {
    type: 'string',
    description: `With --repo: the most environments a commit's dashcd.yaml may declare, each a store, loop and poller of this process; a commit declaring more is refused (default: ${DEFAULT_REPOSITORY_ENVIRONMENTS}, at most ${MAX_REPOSITORY_ENVIRONMENTS})`,
    valueName: 'N',
  },
  'allow-target': {
    type: 'string',
    multiple: true,
    description: "With --repo: dashcd.yaml may send the token in VAR to URL (repeatable); a commit asking for any other tokenEnv/target is refused",
    valueName: 'VAR=URL',
  },
};

/**
 * `--repo` and its companions, validated; undefined without `--repo`. Credentials come from the environment only:
 * DASHCD_GIT_TOKEN (+ DASHCD_GIT_USERNAME), DASHCD_GIT_SSH_KEY (+ DASHCD_GIT_KNOWN_HOSTS); DASHCD_WEBHOOK_SECRET
 * enables `POST /hooks/git`.
 */
export function repoOptions(flags: FlagValues, io: CommandIo): RepoOptions | undefined {
  const repo = stringFlag(flags, 'repo');
  if (repo === undefined) {
    const stray = ['branch', 'tag-pattern', 'path', 'fetch', 'skip-invalid', 'allow-target', 'ownership-tag', 'max-environments'].find((name) => flags[name] !== undefined);
    if (stray) throw new UsageError(`--${stray} needs --repo`);
    return undefined;
  }
  if (stringFlag(flags, 'dir') !== undefined) throw new UsageError('--dir is the local folder mode; with --repo, name the folder inside the repository with --path');
  const follow = followFlags(flags);
  return {
    url: repositoryUrl(repo, io.cwd),
    follow,
    path: repoPath(stringFlag(flags, 'path') ?? 'dashboards'),
    fetchMs: durationFlag(flags, 'fetch', 60_000, { minMs: 1000 }),
    credentials: credentialsFromEnv(io.env),
    ...(io.env.DASHCD_WEBHOOK_SECRET ? { webhookSecret: io.env.DASHCD_WEBHOOK_SECRET } : {}),
    skipInvalid: booleanFlag(flags, 'skip-invalid'),
    allowTargets: targetGrants(flags),
    maxEnvironments: maxEnvironmentsFlag(flags),
  };
}

/** `--max-environments N`, 1 to MAX_REPOSITORY_ENVIRONMENTS. */
function maxEnvironmentsFlag(flags: FlagValues): number {
  const count = intFlag(flags, 'max-environments', DEFAULT_REPOSITORY_ENVIRONMENTS, { min: 1 });
  if (count > MAX_REPOSITORY_ENVIRONMENTS) throw new UsageError(`--max-environments must be at most ${MAX_REPOSITORY_ENVIRONMENTS}, got ${count}`);
  return count;
}

/** `--allow-target VAR=URL`, each as given (a URL may hold a comma, so no comma splitting). */
function targetGrants(flags: FlagValues): TargetGrant[] {
  const given = flags['allow-target'];
  return (Array.isArray(given) ? given : typeof given === 'string' ? [given] : []).map((text) => {
    const grant = parseTargetGrant(text);
    if (typeof grant === 'string') throw new UsageError(grant);
    return grant;
  });
}

function followFlags(flags: FlagValues): Follow {
  const branch = stringFlag(flags, 'branch');
  const tagPattern = stringFlag(flags, 'tag-pattern');
  if (branch !== undefined && tagPattern !== undefined) throw new UsageError('--branch and --tag-pattern exclude each other: follow a branch or tags');
  const follow: Follow = tagPattern !== undefined ? { tagPattern } : { branch: branch ?? 'main' };
  const problem = followProblem(follow);
  if (problem) throw new UsageError(problem);
  return follow;
}

/**
 * A local path (it exists) becomes a file:// URL, so git resolves it from here and not from the mirror. A URL that
 * carries credentials is a usage error here, before anything logs or shows it.
 */
function repositoryUrl(repo: string, cwd: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) && existsSync(resolve(cwd, repo))) return pathToFileURL(resolve(cwd, repo)).href;
  try {
    checkRepositoryUrl(repo);
  } catch (error) {
    if (error instanceof SourceError) throw new UsageError(error.message);
    throw error;
  }
  return repo;
}

/** A folder inside the checkout: never the root (dashcd.yaml sits beside the folder) and never outside it. */
function repoPath(path: string): string {
  const clean = normalize(path).replace(/\\/g, '/').replace(/\/$/, '');
  if (isAbsolute(path) || clean === '.' || clean === '' || clean.startsWith('../') || clean === '..') {
    throw new UsageError(`--path must be a folder inside the repository, like 'dashboards', got '${path}'`);
  }
  return clean;
}

function credentialsFromEnv(env: CommandIo['env']): GitCredentials {
  return {
    ...(env.DASHCD_GIT_TOKEN ? { token: env.DASHCD_GIT_TOKEN } : {}),
    ...(env.DASHCD_GIT_USERNAME ? { username: env.DASHCD_GIT_USERNAME } : {}),
    ...(env.DASHCD_GIT_SSH_KEY ? { sshKeyFile: env.DASHCD_GIT_SSH_KEY } : {}),
    ...(env.DASHCD_GIT_KNOWN_HOSTS ? { sshKnownHostsFile: env.DASHCD_GIT_KNOWN_HOSTS } : {}),
  };
}
