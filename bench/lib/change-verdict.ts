import { ratio, type Better } from './figure.js';
import { summarize, type Sample } from './stats.js';

/** A change of less than this either way is "same", however far apart the runs are. */
export const SAME_WITHIN = 0.05;

/**
 * What the runs say of a change beyond SAME_WITHIN: every run of one build beyond every run of the other ("runs
 * apart"), the two builds' runs overlapping (the medians differ, but a rerun may read the other way: on the 2-core
 * machines this is measured on, a p99 or a whole CLI run moves 20–50 % between runs), or a single value on either side,
 * which no spread backs. "Apart" is evidence, not proof (chanceApartUnchanged: one sitting in ten with 3 runs each, 1 in
 * 126 with 5); and a figure whose "runs" are
 * samples of one process (the daemon's RSS every 3 s) has a spread too narrow to say more than its median does.
 */
export type Evidence = 'runs apart' | 'runs overlap' | 'one value';

export type Change = { readonly factor: number } & ({ readonly direction: 'same' } | { readonly direction: 'better' | 'worse'; readonly evidence: Evidence });

/**
 * How often code that did not change still reads "runs apart" with `runs` runs each: of the (2n choose n) equally
 * likely ways to split 2n runs between the builds, the two where one build holds the n lowest.
 */
export function chanceApartUnchanged(runs: number): number {
  let splits = 1;
  for (let k = 1; k <= runs; k++) splits = (splits * (runs + k)) / k;
  return 2 / splits;
}

/** Whether every run of `now` lies beyond every run of `before` on the side the factor moved to. */
function evidence(before: Sample, now: Sample, factor: number): Evidence {
  if (before.runs.length < 2 || now.runs.length < 2) return 'one value';
  const apart = factor > 1 ? now.min > before.max : now.max < before.min;
  return apart ? 'runs apart' : 'runs overlap';
}

/**
 * now / before (or the factor given, when the figures are ratios whose medians the caller divides), and which way
 * that is for a row where `better` is higher or lower; undefined when that factor is not a number (a zero before).
 */
export function judgeChange(better: Better, before: Sample, now: Sample, factor = now.median / before.median): Change | undefined {
  if (!Number.isFinite(factor)) return undefined;
  if (Math.abs(factor - 1) < SAME_WITHIN) return { factor, direction: 'same' };
  const improved = better === 'higher' ? factor > 1 : factor < 1;
  return { factor, direction: improved ? 'better' : 'worse', evidence: evidence(before, now, factor) };
}

/**
 * Each run's figure over the baseline run of the same round (repeat.ts interleaves the tasks round by round): a drift
 * of the machine within the sitting moves both, so these ratios spread less than either. Without a round-by-round
 * pairing (different counts, or a baseline run of zero), the one ratio of the medians, a single value.
 */
export function pairedRatios(value: Sample, baseline: Sample): Sample {
  const paired = value.runs.length === baseline.runs.length && baseline.runs.every((b) => b !== 0);
  if (paired) return summarize(value.runs.map((v, i) => v / (baseline.runs[i] as number)));
  return summarize([ratio(value, baseline)]);
}
