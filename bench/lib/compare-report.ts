import type { Better, Row } from './figure.js';
import { ratio } from './figure.js';
import { describeMachine } from './machine.js';
import { formatNumber, formatSample, markdownTable, type BenchResults, type FigureResult } from './report.js';

/** One sitting of `npm run bench -- --before <commit>`: the same figures against both builds, in turn. */
export interface CompareResults {
  schemaVersion: 1;
  takenAt: string;
  before: { commit: string; shims: string[]; results: BenchResults };
  now: { commit: string; results: BenchResults };
  /** Which build ran first for each lane of figures (they alternate). */
  order: { figures: string[]; first: 'before' | 'now' }[];
}

/** A change of less than this either way is within a run's noise on the machines measured so far. */
const SAME_WITHIN = 0.05;

/** now / before, and which way that is for a row where `better` is higher or lower. */
export function changeCell(better: Better, before: number, now: number): string {
  if (before === 0 || !Number.isFinite(before) || !Number.isFinite(now)) return '—';
  const change = now / before;
  if (Math.abs(change - 1) < SAME_WITHIN) return `${formatNumber(change)}× (same)`;
  const improved = better === 'higher' ? change > 1 : change < 1;
  return `${formatNumber(change)}× (${improved ? 'better' : '**worse**'})`;
}

const baselineRatio = (row: Row | undefined): number | undefined => (row?.baseline ? ratio(row.value, row.baseline.value) : undefined);
const ratioCell = (row: Row | undefined): string => {
  const value = baselineRatio(row);
  return value === undefined ? '—' : `${formatNumber(value)}×`;
};

/**
 * now's ratio / before's ratio: the change with each build measured against its own baseline of the same minutes, so
 * a machine that was slower while one build ran (its baseline slower too) does not read as a change in dashcd.
 */
function ratioChangeCell(better: Row['better'], before: Row | undefined, now: Row | undefined): string {
  const b = baselineRatio(before);
  const n = baselineRatio(now);
  return b === undefined || n === undefined ? '—' : changeCell(better, b, n);
}

/**
 * What a build's column says for a figure it did not measure. A figure whose component the old commit lacks says
 * so (its own check, or a shim's stub: bench/lib/before-shims.ts): that is "not in <sha>"; its reason stays in the JSON.
 */
function absence(figure: FigureResult | undefined, side: 'before' | 'now', commit: string): string | undefined {
  if (!figure) return 'not run';
  if (figure.status === 'measured') return undefined;
  if (figure.status === 'failed') return `failed: ${figure.reason ?? ''}`;
  return side === 'before' ? `not in ${commit}` : `not yet measured (${figure.reason ?? ''})`;
}

function figureLines(name: string, before: FigureResult | undefined, now: FigureResult | undefined, commits: { before: string; now: string }): string[][] {
  const title = now?.title ?? before?.title ?? name;
  const missingBefore = absence(before, 'before', commits.before);
  const missingNow = absence(now, 'now', commits.now);
  if (missingBefore !== undefined && missingNow !== undefined) return [[title, missingBefore, '—', missingNow, '—', '—', '—']];
  const beforeRows = before?.rows ?? [];
  const nowRows = now?.rows ?? [];
  const labels = [...new Set([...nowRows, ...beforeRows].map((r) => r.label))];
  return labels.map((label) => {
    const b = beforeRows.find((r) => r.label === label);
    const n = nowRows.find((r) => r.label === label);
    const cell = (row: Row | undefined, missing: string | undefined): string => missing ?? (row ? formatSample(row.value, row.unit) : '—');
    const change = b && n && b.unit === n.unit ? changeCell(n.better, b.value.median, n.value.median) : '—';
    const againstBaselines = n && !missingBefore && !missingNow ? ratioChangeCell(n.better, b, n) : '—';
    return [label, cell(b, missingBefore), missingBefore ? '—' : ratioCell(b), cell(n, missingNow), missingNow ? '—' : ratioCell(n), change, againstBaselines];
  });
}

function curveLines(c: CompareResults): string[][] {
  const lines: string[][] = [];
  const beforeCurves = c.before.results.figures.flatMap((f) => f.curves ?? []);
  for (const curve of c.now.results.figures.flatMap((f) => f.curves ?? [])) {
    const old = beforeCurves.find((b) => b.label === curve.label);
    for (const p of curve.points) {
      const o = old?.points.find((q) => q.size === p.size && q.unit === p.unit);
      const size = `${p.size.toLocaleString('en-US')} ${curve.axis}`;
      lines.push([curve.label, size, o ? `${formatNumber(o.value)} ${o.unit}` : '—', `${formatNumber(p.value)} ${p.unit}`, o ? changeCell('lower', o.value, p.value) : '—']);
    }
  }
  return lines;
}

/** The before / now table: each row's value and its ratio to its own baseline in both builds, and now / before. */
export function renderCompare(c: CompareResults): string {
  const names = [...new Set([...c.now.results.figures, ...c.before.results.figures].map((f) => f.name))];
  const commits = { before: c.before.commit, now: c.now.commit };
  const lines = names.flatMap((name) =>
    figureLines(
      name,
      c.before.results.figures.find((f) => f.name === name),
      c.now.results.figures.find((f) => f.name === name),
      commits,
    ),
  );
  const { settings } = c.now.results;
  const parts = [
    `Before and now (${c.now.results.mode}), ${c.takenAt}`,
    `Machine: ${describeMachine(c.now.results.machine)}`,
    `Before: ${c.before.commit} with today's bench over it; now: ${c.now.commit}. Each lane of figures ran against both builds in turn, which one first alternating (${c.order.map((o) => `${o.figures.join('+')}: ${o.first} first`).join('; ')}).`,
    `Values are medians of ${String(settings['runs'])} runs after ${String(settings['warmups'])} warm-up (min–max in brackets); ratio = figure / its baseline in the same build's run; change = now / before (within ${String(SAME_WITHIN * 100)} % is "same"; better or worse by the row's direction); against the baselines = now's ratio / before's ratio, the change with each build measured against its own baseline of the same minutes (the machine's drift between the two builds' runs cancels out).`,
    '',
    markdownTable(['Figure', c.before.commit, 'ratio', `now (${c.now.commit})`, 'ratio', 'Change (now / before)', 'Against the baselines'], lines),
  ];
  const curves = curveLines(c);
  if (curves.length > 0) parts.push('', 'How cost grows:', '', markdownTable(['Curve', 'Size', c.before.commit, 'now', 'Change'], curves));
  if (c.before.shims.length > 0) parts.push('', `Shims over ${c.before.commit} (bench/lib/before-shims.ts):`, '', ...c.before.shims.map((s) => `- ${s}`));
  return `${parts.join('\n')}\n`;
}
