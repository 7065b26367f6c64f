import { chanceApartUnchanged, judgeChange, pairedRatios, SAME_WITHIN, type Change } from './change-verdict.js';
import type { Row } from './figure.js';
import { ratio } from './figure.js';
import { describeMachine } from './machine.js';
import { formatNumber, formatSample, markdownTable, type BenchResults, type FigureResult } from './report.js';
import { summarize } from './stats.js';

/** One sitting of `npm run bench -- --before <commit>`: the same figures against both builds, in turn. */
export interface CompareResults {
  schemaVersion: 1;
  takenAt: string;
  before: { commit: string; shims: string[]; results: BenchResults };
  now: { commit: string; results: BenchResults };
  /** Which build ran first for each lane of figures (they alternate). */
  order: { figures: string[]; first: 'before' | 'now' }[];
}

/**
 * The change's factor and direction; a qualifier where the runs cannot back it ("runs overlap", "one value"), so a bare
 * "better" or a bold "**worse**" is one where every run of one build lies beyond every run of the other.
 */
export function changeCell(change: Change | undefined): string {
  if (!change) return '—';
  const factor = `${formatNumber(change.factor)}×`;
  if (change.direction === 'same') return `${factor} (same)`;
  if (change.evidence === 'runs apart') return `${factor} (${change.direction === 'worse' ? '**worse**' : 'better'})`;
  return `${factor} (${change.direction}, ${change.evidence})`;
}

const ratioCell = (row: Row | undefined): string => (row?.baseline ? `${formatNumber(ratio(row.value, row.baseline.value))}×` : '—');

/**
 * now's ratio / before's ratio: the change with each build measured against its own baseline of the same minutes, so
 * a machine that was slower while one build ran (its baseline slower too) does not read as a change in dashcd. The
 * factor divides the ratio cells; whether the runs overlap is judged on each run's own ratio to its baseline run.
 */
function ratioChangeCell(better: Row['better'], before: Row | undefined, now: Row | undefined): string {
  if (!before?.baseline || !now?.baseline) return '—';
  const factor = ratio(now.value, now.baseline.value) / ratio(before.value, before.baseline.value);
  return changeCell(judgeChange(better, pairedRatios(before.value, before.baseline.value), pairedRatios(now.value, now.baseline.value), factor));
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
    const change = b && n && b.unit === n.unit ? changeCell(judgeChange(n.better, b.value, n.value)) : '—';
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
      lines.push([curve.label, size, o ? `${formatNumber(o.value)} ${o.unit}` : '—', `${formatNumber(p.value)} ${p.unit}`, o ? changeCell(judgeChange('lower', summarize([o.value]), summarize([p.value]))) : '—']);
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
    `Values are medians of ${String(settings['runs'])} runs after ${String(settings['warmups'])} warm-up (min–max in brackets); ratio = figure / its baseline in the same build's run; change = now / before (within ${String(SAME_WITHIN * 100)} % is "same"; else better or worse by the row's direction: a bare "better" or a bold "**worse**" where every run of one build lies beyond every run of the other (with ${String(settings['runs'])} runs each, unchanged code still reads so one time in ${formatNumber(1 / chanceApartUnchanged(Number(settings['runs'])))}), "runs overlap" where the runs' own spread covers the difference, which a rerun may turn around, and "one value" where either side is a single value, with no spread to judge by); against the baselines = now's ratio / before's ratio, the change with each build measured against its own baseline of the same minutes (the machine's drift between the two builds' runs cancels out; the overlap judged on each run's ratio to the baseline run of the same round).`,
    '',
    markdownTable(['Figure', c.before.commit, 'ratio', `now (${c.now.commit})`, 'ratio', 'Change (now / before)', 'Against the baselines'], lines),
  ];
  const curves = curveLines(c);
  if (curves.length > 0) parts.push('', 'How cost grows:', '', markdownTable(['Curve', 'Size', c.before.commit, 'now', 'Change'], curves));
  if (c.before.shims.length > 0) parts.push('', `Shims over ${c.before.commit} (bench/lib/before-shims.ts):`, '', ...c.before.shims.map((s) => `- ${s}`));
  return `${parts.join('\n')}\n`;
}
