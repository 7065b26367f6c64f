import type { Figure } from './figure.js';

/**
 * Figures that serve the same shared data dir (`Figure.lane`) run one after another in one lane; every other figure
 * is a lane of its own. Longest lanes first, so the last lane to start is a short one.
 */
export function lanes(figures: readonly Figure[]): Figure[][] {
  const byLane = new Map<string, Figure[]>();
  for (const figure of figures) {
    const key = figure.lane ?? figure.name;
    byLane.set(key, [...(byLane.get(key) ?? []), figure]);
  }
  return [...byLane.values()].sort((a, b) => b.length - a.length);
}
