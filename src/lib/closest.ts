/**
 * The candidate nearest to `word` within `maxDistance` edits, if any: for "did you mean" hints. Case is ignored
 * (`tilefilter` → `tileFilter`) and a swap of two neighbouring letters is one edit (`widht` → `width`).
 *
 * Words and candidates are a committer's (value names, keys, tile types), so the work is bounded: a word longer than
 * MAX_HINTED_LENGTH gets no hint (a misspelt name is short), only the first MAX_CANDIDATES are compared (a real set of
 * names, keys or values is smaller), and a candidate is compared only along the diagonal band the distance allows,
 * stopping at the first row past it. Over the whole table, a thousand unknown names against a thousand declared ones
 * took 4 s of each daemon pass (12.8 s for names of 62 characters), and one 10,000-character name against one key 2.8 s.
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
export const MAX_CANDIDATES = 256;

/**
 * Optimal string alignment distance (insertions, deletions, substitutions and adjacent transpositions) when it is at
 * most `limit`, else `limit + 1`. Cells further than `limit` from the diagonal are at least that far apart, so only
 * the band is computed (Ukkonen's cut-off), in three rows made once: each row writes its band and a sentinel on each
 * side, all the next rows read of it.
 */
function editDistance(a: string, b: string, limit: number): number {
  const over = limit + 1;
  if (Math.abs(a.length - b.length) > limit) return over;
  const width = b.length + 2;
  let before = new Array<number>(width).fill(over);
  let previous = Array.from({ length: width }, (_, j) => (j <= limit && j <= b.length ? j : over));
  let current = new Array<number>(width).fill(over);
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - limit);
    const to = Math.min(b.length, i + limit);
    current[0] = i <= limit ? i : over;
    current[from - 1] = from === 1 ? (current[0] ?? over) : over;
    let rowLeast = from === 1 ? (current[0] ?? over) : over;
    for (let j = from; j <= to; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((previous[j] ?? over) + 1, (current[j - 1] ?? over) + 1, (previous[j - 1] ?? over) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, (before[j - 2] ?? over) + 1);
      const cell = Math.min(d, over);
      current[j] = cell;
      if (cell < rowLeast) rowLeast = cell;
    }
    current[to + 1] = over;
    if (rowLeast > limit) return over;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length] ?? over, over);
}
