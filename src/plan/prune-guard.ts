/**
 * The most deletions allowed, and who set it, so a refusal says what to raise: `--max-delete` (`flag`), `maxDelete` in
 * dashcd.yaml (`file`), neither (`default`), or a daemon operator's `--max-delete` over a followed repository's
 * dashcd.yaml (`ceiling`), which its committers cannot raise.
 */
export interface PruneLimit {
  readonly maxDelete: number;
  readonly from: 'flag' | 'file' | 'default' | 'ceiling';
}

const LIMIT_NAMES: Record<PruneLimit['from'], (n: number) => string> = {
  flag: (n) => `--max-delete ${n}; raise --max-delete to allow it`,
  file: (n) => `maxDelete ${n} in dashcd.yaml; raise it there, or pass --max-delete, to allow it`,
  default: (n) => `the default limit of ${n}; set maxDelete in dashcd.yaml, or pass --max-delete, to allow it`,
  ceiling: (n) => `the operator's --max-delete ${n}, the most a commit may delete here`,
};

/**
 * Guards against mass deletion: an empty or missing dashboards folder never prunes everything, and more deletions
 * than `maxDelete` stop the run before any deletion. Returns the reason to refuse, or undefined to proceed.
 */
export function pruneRefusal(input: { desiredCount: number; orphanCount: number } & PruneLimit): string | undefined {
  const { desiredCount, orphanCount, maxDelete, from } = input;
  if (orphanCount === 0) return undefined;
  if (desiredCount === 0) {
    const all = orphanCount === 1 ? 'the one managed dashboard' : `all ${orphanCount} managed dashboards`;
    return `refusing to prune: the dashboards folder has no dashboards, so ${all} would be deleted`;
  }
  if (orphanCount > maxDelete) {
    return `refusing to prune ${orphanCount} dashboard${orphanCount === 1 ? '' : 's'}: more than ${LIMIT_NAMES[from](maxDelete)}`;
  }
  return undefined;
}
