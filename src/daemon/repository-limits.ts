import { DEFAULT_OWNERSHIP_TAG, loadProjectConfigFor, type ProjectConfig } from '../config/project-config.js';
import { errorMessage } from '../lib/error-message.js';
import { DEFAULT_MAX_DELETE } from '../reconcile/plan-dashboards.js';

/**
 * What a repository's dashcd.yaml may ask of deletion when the daemon follows it (`daemon --repo`). Prune deletes
 * whatever live dashboard or document carries the ownership tag, so whoever chooses the tag chooses what may be
 * deleted: a committer naming a tag people already use (`team-x`) would have their dashboards pruned for good. The
 * tag is therefore the operator's (`--ownership-tag`, default the built-in one), and so is the most a pass may delete
 * (`--max-delete`, default 5). A revision asking for another tag or a higher limit is refused whole, as one asking for
 * a target the operator has not allowed (target-allow-list.ts). Refused, not overridden: the pull request's
 * `dashcd plan` reads the same dashcd.yaml, and a daemon quietly using another tag would make that plan wrong.
 */
export interface RepositoryLimits {
  /** The only ownership tag a revision's dashcd.yaml may have (set or by default). */
  ownershipTag: string;
  /** The most deletions per pass a revision's `maxDelete` may ask for. */
  maxDelete: number;
}

/** A daemon started without `--ownership-tag` and `--max-delete`: the tag and the limit of every other command. */
export const BUILT_IN_LIMITS: RepositoryLimits = { ownershipTag: DEFAULT_OWNERSHIP_TAG, maxDelete: DEFAULT_MAX_DELETE };

/** The operator's limits as the daemon was started: `--ownership-tag` and `--max-delete`, else the built-in ones. */
export function repositoryLimits(options: { ownershipTag?: string | undefined; maxDelete: number | undefined }): RepositoryLimits {
  return { ownershipTag: options.ownershipTag ?? BUILT_IN_LIMITS.ownershipTag, maxDelete: options.maxDelete ?? BUILT_IN_LIMITS.maxDelete };
}

/** The same rule as dashcd.yaml's `ownershipTag`, so every tag the operator may give is one a revision can match. */
export function ownershipTagProblem(tag: string): string | undefined {
  if (tag === '' || tag.trim() !== tag) return `--ownership-tag must be a tag without surrounding blanks, like '${DEFAULT_OWNERSHIP_TAG}', got '${tag}'`;
  return undefined;
}

/** Why `config` asks for more than `limits` allow; empty when it may be applied. */
export function limitRefusals(config: Pick<ProjectConfig, 'ownershipTag' | 'maxDelete'>, limits: RepositoryLimits, { hasFile = true }: { hasFile?: boolean } = {}): string[] {
  const refusals: string[] = [];
  if (config.ownershipTag !== limits.ownershipTag) {
    const tag = hasFile ? `dashcd.yaml's ownershipTag is '${config.ownershipTag}'` : `without a dashcd.yaml the ownership tag is the default '${config.ownershipTag}'`;
    refusals.push(`${tag}, not the operator's '${limits.ownershipTag}' (--ownership-tag): prune deletes what carries the tag, so only the operator chooses it`);
  }
  if (config.maxDelete !== undefined && config.maxDelete > limits.maxDelete) {
    refusals.push(`dashcd.yaml's maxDelete ${config.maxDelete} is more than the ${limits.maxDelete} deletions per pass the operator allows (--max-delete)`);
  }
  return refusals;
}

/**
 * The same for a checkout's dashcd.yaml (beside `dashboardsDir`). An invalid one is refused by the pass as invalid,
 * so it asks nothing here; one that cannot be read at all is refused. Never throws.
 */
export async function checkoutLimitRefusals(dashboardsDir: string, root: string, limits: RepositoryLimits): Promise<string[]> {
  try {
    const project = await loadProjectConfigFor(dashboardsDir, root);
    return project.diagnostics.length > 0 ? [] : limitRefusals(project.config, limits, { hasFile: project.file !== undefined });
  } catch (error) {
    return [`dashcd.yaml could not be read to check its ownershipTag and maxDelete: ${errorMessage(error)}`];
  }
}
