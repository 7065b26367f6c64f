/**
 * The candidate nearest to `word` within `maxDistance` edits, if any: for "did you mean" hints. Case is ignored
 * (`tilefilter` → `tileFilter`) and a swap of two neighbouring letters is one edit (`widht` → `width`).
 */
export function closest(word: string, candidates: readonly string[], maxDistance = 3): string | undefined {
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? 0) + 1);
      current[j] = d;
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
