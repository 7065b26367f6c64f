/**
 * Guards against mass deletion: an empty or missing dashboards folder never prunes everything, and more deletions
 * than `maxDelete` stop the run before any deletion. Returns the reason to refuse, or undefined to proceed.
 */
export function pruneRefusal(input: { desiredCount: number; orphanCount: number; maxDelete: number }): string | undefined {
  const { desiredCount, orphanCount, maxDelete } = input;
  if (orphanCount === 0) return undefined;
  if (desiredCount === 0) {
    const all = orphanCount === 1 ? 'the one managed dashboard' : `all ${orphanCount} managed dashboards`;
    return `refusing to prune: the dashboards folder has no dashboards, so ${all} would be deleted`;
  }
  if (orphanCount > maxDelete) {
    return `refusing to prune ${orphanCount} dashboard${orphanCount === 1 ? '' : 's'}: more than --max-delete ${maxDelete}; raise --max-delete to allow it`;
  }
  return undefined;
}
