import type { Figure } from '../lib/figure.js';
import { getFigure } from './get.js';
import { putFigure } from './put.js';
import { daemonLiveFigure, daemonRssFigure } from './daemon.js';
import { applyFigure } from './apply.js';
import { planFigure, planGrowthFigure } from './plan.js';
import { validateFigure } from './validate.js';

function pending(name: string, title: string, goal: string, reason: string): Figure {
  return {
    name,
    title,
    goal,
    pending: reason,
    run: () => Promise.reject(new Error(`${name} is not measurable yet: ${reason}`)),
  };
}

/** Every figure of the issue, in table order. `npm run bench -- <name>` runs one. */
export const FIGURES: readonly Figure[] = [
  getFigure,
  putFigure,
  validateFigure,
  planFigure,
  applyFigure,
  pending('events-page', 'events page latency at 1,000,000 events', 'p99 ≤ 5 ms; RSS ≤ 500 MB; start ≤ 5 s', 'event store not landed'),
  pending('events-pull', 'events pull of 1,000,000 events', '≥ 80,000 events/s, durable per page', 'archiver not landed'),
  daemonLiveFigure,
  daemonRssFigure,
  planGrowthFigure,
  pending('events-growth', 'events cost at 10k / 100k / 1M events', 'flat cost per event', 'event store not landed'),
];
