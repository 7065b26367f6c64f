import type { Figure } from '../lib/figure.js';
import { getFigure } from './get.js';
import { putFigure } from './put.js';

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
  pending('validate', 'validate over 1,000 YAML dashboards, wall time', '≤ 1.0 s', 'desired loader not landed'),
  pending('plan', 'no-op plan over 1,000 dashboards', '≤ 1.5 s and 0 writes', 'plan command not landed'),
  pending('apply', 'apply of 1,000 new dashboards', '≤ 3 s', 'apply command not landed'),
  pending('events-page', 'events page latency at 1,000,000 events', 'p99 ≤ 5 ms; RSS ≤ 500 MB; start ≤ 5 s', 'event store not landed'),
  pending('events-pull', 'events pull of 1,000,000 events', '≥ 80,000 events/s, durable per page', 'archiver not landed'),
  pending('daemon-live', 'daemon: file saved → dashboard live, 100 edits', 'p50 ≤ 150 ms; p99 ≤ 500 ms', 'daemon not landed'),
  pending('daemon-rss', 'daemon RSS with 1,000 dashboards and the archive poller', '≤ 300 MB', 'daemon not landed'),
  pending('plan-growth', 'plan cost at 100 / 1,000 / 10,000 dashboards', 'flat cost per dashboard', 'plan command not landed'),
  pending('events-growth', 'events cost at 10k / 100k / 1M events', 'flat cost per event', 'event store not landed'),
];
