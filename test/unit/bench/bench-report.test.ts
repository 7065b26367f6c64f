import { describe, expect, it } from 'vitest';
import type { Row } from '../../../bench/lib/figure.js';
import { boundedGoal } from '../../../bench/lib/goal.js';
import { renderReport, type BenchResults } from '../../../bench/lib/report.js';
import { summarize } from '../../../bench/lib/stats.js';

const MACHINE = { cpus: 2, cpuModel: 'test', memoryGb: 1, node: 'v20', platform: 'linux-x64', kernel: '6', uvThreadpoolSize: 4, gitCommit: 'abc', gitDirty: false, loadAverageAtStart: 0 };

/** A row with an absolute bound, its value and its baseline's median as given. */
const boundRow = (better: Row['better'], bound: number) => (label: string, value: number, baseline: number): Row => ({
  label,
  unit: 'u',
  better,
  value: summarize([value]),
  baseline: { label: 'bare', value: summarize([baseline]) },
  goal: { text: `bound ${bound}`, met: better === 'lower' ? value <= bound : value >= bound, limit: bound },
});
const latencyRow = boundRow('lower', 5);

/** A wall-time row whose goal is an absolute bound and a ratio to its baseline, as the CLI figures state theirs. */
const wallRow = (label: string, value: number, baseline: number, bounds: { limit?: number; ratio?: number }): Row => ({
  label,
  unit: 's',
  better: 'lower',
  value: summarize([value]),
  baseline: { label: 'yaml', value: summarize([baseline]) },
  goal: boundedGoal('lower', 's', bounds, summarize([value]), summarize([baseline])),
});

/** A column of each row, by label (the last column by default: Met). */
function metColumn(rows: Row[], column = -1): Record<string, string> {
  const results: BenchResults = {
    schemaVersion: 1,
    takenAt: '2026-11-27T00:00:00.000Z',
    mode: 'full',
    machine: MACHINE,
    settings: { runs: 1, warmups: 0 },
    figures: [{ name: 'f', title: 'f', goal: 'g', status: 'measured', takenAt: '2026-11-27T00:00:00.000Z', rows }],
  };
  const lines = renderReport(results).split('\n').filter((line) => line.startsWith('| row '));
  return Object.fromEntries(lines.map((line) => [line.split(' | ')[0]?.slice(2) ?? '', line.split(' | ').at(column)?.replace(/ \|$/, '') ?? '']));
}

describe('the bench report', () => {
  it('says when a missed bound is missed by the baseline of the same runs too (the machine\'s own limit)', () => {
    expect(metColumn([latencyRow('row met', 4, 6), latencyRow('row missed alone', 5.5, 4), latencyRow('row missed by both', 5.5, 6)])).toEqual({
      'row met': 'yes',
      'row missed alone': '**no**',
      'row missed by both': '**no**, nor the baseline',
    });
  });

  it('reads "higher is better" bounds the other way', () => {
    const rate = boundRow('higher', 100);
    expect(metColumn([rate('row slow alone', 90, 120), rate('row slow both', 90, 95)])).toEqual({ 'row slow alone': '**no**', 'row slow both': '**no**, nor the baseline' });
  });

  it('states a ratio goal beside the absolute one, and holds a figure to both', () => {
    const rows = [
      wallRow('row both met', 0.9, 10, { limit: 1, ratio: 0.15 }),
      wallRow('row ratio missed', 0.9, 5, { limit: 1, ratio: 0.15 }),
      wallRow('row ratio missed, bound missed by both', 2, 0.5, { limit: 1, ratio: 0.15 }),
      wallRow('row absolute missed by both, ratio met', 1.2, 10, { limit: 1, ratio: 0.15 }),
      wallRow('row ratio only', 2, 10, { ratio: 0.15 }),
    ];
    expect(metColumn(rows, -2)).toEqual({
      'row both met': '≤ 1 s (0.10× baseline); ≤ 0.15× baseline',
      'row ratio missed': '≤ 1 s (0.20× baseline); ≤ 0.15× baseline',
      'row ratio missed, bound missed by both': '≤ 1 s (2× baseline); ≤ 0.15× baseline',
      'row absolute missed by both, ratio met': '≤ 1 s (0.10× baseline); ≤ 0.15× baseline',
      'row ratio only': '≤ 0.15× baseline',
    });
    expect(metColumn(rows)).toEqual({
      'row both met': 'yes',
      'row ratio missed': '**no**',
      'row ratio missed, bound missed by both': '**no**',
      'row absolute missed by both, ratio met': '**no**, nor the baseline',
      'row ratio only': '**no**',
    });
  });
});
