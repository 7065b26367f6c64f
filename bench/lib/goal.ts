import { ratio, type Better, type Goal } from './figure.js';
import type { Sample } from './stats.js';

/** A goal's bounds: an absolute one in the row's unit, one on figure / baseline, or both (both must hold). */
export interface Bounds {
  limit?: number;
  ratio?: number;
}

/** Whether `x` keeps to `bound` on the good side. */
export function within(better: Better, x: number, bound: number): boolean {
  return better === 'lower' ? x <= bound : x >= bound;
}

/**
 * The goal of a row measured beside a baseline: met when the median is within every bound given. The text states
 * the absolute bound only; the report adds the ratio bound and restates the absolute one as a ratio to the baseline.
 */
export function boundedGoal(better: Better, unit: string, bounds: Bounds, value: Sample, baseline: Sample): Goal {
  const { limit, ratio: maxRatio } = bounds;
  const met = (limit === undefined || within(better, value.median, limit)) && (maxRatio === undefined || within(better, ratio(value, baseline), maxRatio));
  return {
    text: boundsText(better, unit, { ...(limit === undefined ? {} : { limit }) }),
    met,
    ...(limit === undefined ? {} : { limit }),
    ...(maxRatio === undefined ? {} : { ratio: maxRatio }),
  };
}

/** How the goal column and `--list` state bounds: `≤ 1 s, ≤ 0.15× baseline`. */
export function boundsText(better: Better, unit: string, bounds: Bounds, baseline = 'baseline'): string {
  const sign = better === 'lower' ? '≤' : '≥';
  return [bounds.limit === undefined ? '' : `${sign} ${bounds.limit} ${unit}`, bounds.ratio === undefined ? '' : `${sign} ${bounds.ratio}× ${baseline}`].filter(Boolean).join(', ');
}
