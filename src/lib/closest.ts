/**
 * The candidate nearest to `word` within `maxDistance` edits, if any: for "did you mean" hints. Case is ignored
 * (`tilefilter` → `tileFilter`) and a swap of two neighbouring letters is one edit (`widht` → `width`).
 *
 * Words and candidates are a committer's (value names, keys, tile types), so the work is bounded: a word longer than
 * MAX_HINTED_LENGTH gets no hint (a misspelt name is short), only the first MAX_CANDIDATES are compared, and a
 * candidate is compared only along the diagonal band the distance allows, stopping at the first row past it. Over the
 * whole table, a thousand unknown names against a thousand declared ones took 4 s of each daemon pass, and one
 * 10,000-character name against one key 2.8 s.
 */
export function closest(word: string, candidates: readonly string[], maxDistance = 3): string | undefined {
  if (word.length > MAX_HINTED_LENGTH) return undefined;
  let best: string | undefined;
  let bestDistance = maxDistance + 1;
  const lower = word.toLowerCase();
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    const distance = editDistance(lower, candidate.toLowerCase(), bestDistance - 1);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

export const MAX_HINTED_LENGTH = 64;
export const MAX_CANDIDATES = 1000;

/**
 * Optimal string alignment distance (insertions, deletions, substitutions and adjacent transpositions) when it is at
 * most `limit`, else `limit + 1`. Cells further than `limit` from the diagonal are at least that far apart, so only
 * the band is computed (Ukkonen's cut-off).
 */
function editDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => (j <= limit ? j : over));
  for (let i = 1; i <= a.length; i++) {
    const current = new Array<number>(b.length + 1).fill(over);
    if (i <= limit) current[0] = i;
    let rowLeast = current[0] ?? over;
    for (let j = Math.max(1, i - limit); j <= Math.min(b.length, i + limit); j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? over) + 1, (current[j - 1] ?? over) + 1, (previous[j - 1] ?? over) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? over) + 1);
      current[j] = Math.min(d, over);
      rowLeast = Math.min(rowLeast, current[j] ?? over);
    }
    if (rowLeast > limit) return over;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length] ?? over, over);
}
