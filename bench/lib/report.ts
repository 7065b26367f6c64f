import type { Curve, Row } from './figure.js';
import { ratio } from './figure.js';
import { boundsText, within } from './goal.js';
import { describeMachine, type MachineInfo } from './machine.js';
import type { Sample } from './stats.js';

export type FigureStatus = 'measured' | 'not-yet-measured' | 'failed';

export interface FigureResult {
  name: string;
  title: string;
  goal: string;
  status: FigureStatus;
  reason?: string;
  takenAt: string;
  /** The commit this figure measured; a partial run keeps other figures from earlier commits. */
  commit?: string;
  durationMs?: number;
  rows: Row[];
  curves?: Curve[];
  details?: Record<string, unknown>;
}

export interface BenchResults {
  schemaVersion: 1;
  /** When this run started: figures taken before it were kept from earlier runs. */
  runStartedAt?: string;
  takenAt: string;
  mode: 'full' | 'smoke';
  machine: MachineInfo;
  settings: Record<string, unknown>;
  figures: FigureResult[];
}

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (Number.isInteger(value) || abs >= 100) return Math.round(value).toLocaleString('en-US');
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(2);
}

export function formatSample(sample: Sample, unit: string): string {
  const median = `${formatNumber(sample.median)} ${unit}`;
  if (sample.runs.length < 2) return median;
  return `${median} (${formatNumber(sample.min)}–${formatNumber(sample.max)})`;
}

function rowCells(row: Row): string[] {
  const baseline = row.baseline ? `${formatSample(row.baseline.value, row.unit)} — ${row.baseline.label}` : '—';
  const r = row.baseline ? `${formatNumber(ratio(row.value, row.baseline.value))}×` : '—';
  const label = row.note ? `${row.label} (${row.note})` : row.label;
  return [label, formatSample(row.value, row.unit), baseline, r, goalCell(row), metCell(row)];
}

/** The goal as stated, an absolute bound restated as a ratio to this run's baseline, then any ratio bound. */
function goalCell({ goal, baseline, better }: Row): string {
  if (!goal) return '—';
  const restated = goal.limit !== undefined && baseline ? ` (${formatNumber(goal.limit / baseline.value.median)}× baseline)` : '';
  const ratioBound = goal.ratio === undefined ? '' : boundsText(better, '', { ratio: goal.ratio });
  return [goal.text && `${goal.text}${restated}`, ratioBound].filter(Boolean).join('; ');
}

/**
 * "yes" or "**no**"; a missed absolute bound that the row's baseline misses too in the same runs is said to be so:
 * there the machine's own limit is what the table shows beside the figure.
 */
function metCell({ goal, baseline, better, value }: Row): string {
  if (!goal) return '—';
  if (goal.met) return 'yes';
  // A missed ratio is this code's own, whatever the machine did.
  if (goal.ratio !== undefined && baseline && !within(better, ratio(value, baseline.value), goal.ratio)) return '**no**';
  const bound = goal.limit;
  if (bound === undefined || !baseline) return '**no**';
  return !within(better, baseline.value.median, bound) ? '**no**, nor the baseline' : '**no**';
}

function figureLines(figure: FigureResult): string[][] {
  if (figure.status === 'measured') return figure.rows.map(rowCells);
  const what = figure.status === 'failed' ? `failed: ${figure.reason ?? ''}` : `not yet measured (${figure.reason ?? ''})`;
  return [[figure.title, what, '—', '—', figure.goal, figure.status === 'failed' ? '**no**' : '—']];
}

export function markdownTable(header: readonly string[], lines: readonly string[][]): string {
  const escape = (cell: string): string => cell.replaceAll('|', '\\|').replaceAll('\n', ' ');
  const out = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const line of lines) out.push(`| ${line.map(escape).join(' | ')} |`);
  return out.join('\n');
}

function curveLines(figures: readonly FigureResult[]): string[][] {
  const lines: string[][] = [];
  for (const figure of figures) {
    for (const curve of figure.curves ?? []) {
      for (const p of curve.points) {
        lines.push([curve.label, `${p.size.toLocaleString('en-US')} ${curve.axis}`, `${formatNumber(p.value)} ${p.unit}`, `${formatNumber(p.perItem)} ${p.perItemUnit}`]);
      }
      lines.push([curve.label, 'growth of per-item cost, last step', `${formatNumber(curve.growth)}×`, '≈1 is linear']);
    }
  }
  return lines;
}

/** Figures a partial run did not refresh, with when and on which commit they were measured. */
function keptFromEarlierRuns(results: BenchResults): string[] {
  const runStart = Date.parse(results.runStartedAt ?? results.takenAt);
  return results.figures
    .filter((f) => f.status !== 'not-yet-measured' && Date.parse(f.takenAt) < runStart)
    .map((f) => `${f.name} (${f.takenAt.slice(0, 16).replace('T', ' ')} UTC, commit ${f.commit ?? 'unknown'})`);
}

/** The table the lead pastes into docs/benchmarks.md: machine first, then every figure, then the growth curves. */
export function renderReport(results: BenchResults): string {
  const parts = [
    `Benchmarks (${results.mode}), ${results.takenAt}`,
    `Machine: ${describeMachine(results.machine)}`,
    `Values are medians of ${String(results.settings['runs'])} runs after ${String(results.settings['warmups'])} warm-up (min–max in brackets); ratio = figure / baseline.`,
    '',
    markdownTable(['Figure', 'Value', 'Baseline (same run)', 'Ratio', 'Goal', 'Met'], results.figures.flatMap(figureLines)),
  ];
  const earlier = keptFromEarlierRuns(results);
  if (earlier.length > 0) parts.push('', `Kept from earlier runs (this run measured only some figures): ${earlier.join('; ')}.`);
  const curves = curveLines(results.figures);
  if (curves.length > 0) parts.push('', 'How cost grows:', '', markdownTable(['Curve', 'Size', 'Value', 'Per item'], curves));
  return `${parts.join('\n')}\n`;
}
