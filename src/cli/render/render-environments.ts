import { ACTION_ORDER, type Plan, type PlanSummary } from '../../plan/build-plan.js';
import { planToJson, type PlanJson } from './render-json.js';
import { escapeText, renderPlanMarkdown } from './render-markdown.js';
import { renderPlanText } from './render-text.js';
import { gitText } from '../../plan/patch-lines.js';
import { printable } from '../../lib/printable.js';
import type { Diagnostic } from '../../desired/diagnostic.js';
import { count, diagnosticsMarkdown, diagnosticsToJson, type DiagnosticJson } from '../diagnostics-output.js';
import { problemTotal } from '../../desired/capped-problems.js';

/** One environment's part of a plan over several: its plan, or why there is none. */
export type EnvironmentSection = { name: string; target: string } & (
  | { status: 'planned'; plan: Plan }
  | { status: 'invalid'; diagnostics: readonly Diagnostic[] }
  | { status: 'unreachable' | 'not-planned'; error: string }
);

/**
 * `plan --output json` with environments: one entry per chosen environment, in declaration order. An invalid one
 * has `error` and its problems in `diagnostics` (as renderDiagnosticsJson writes them); stdout is never text.
 */
export interface EnvironmentsPlanJson {
  git: PlanJson['git'];
  /** `prune` as a single plan's: `refused` is the guard's reason when it refused (apply writes nothing there); null when nothing was planned. */
  environments: { name: string; target: string; changes: PlanJson['changes']; summary: PlanJson['summary'] | null; prune: PlanJson['prune'] | null; error: string | null; diagnostics: DiagnosticJson[] }[];
}

/**
 * The plan for people, over several environments: a summary table (environment × action counts) first, so a
 * reviewer sees at once what reaches prod, then one section per environment as the single-environment plan has it.
 */
export function renderEnvironmentsText(sections: readonly EnvironmentSection[]): string {
  const git = firstPlan(sections)?.git;
  const head = `Plan for ${sections.length} environment${sections.length === 1 ? '' : 's'}${git ? ` ${printable(gitText(git))}` : ''}`;
  const columns = summaryColumns(sections);
  // Every row has every count column (`-` where nothing was planned), then why not: a long reason widens nothing.
  const rows = [['environment', ...columns], ...sections.map((s) => [s.name, ...cells(s, columns)])];
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const table = rows.map((r, row) => {
    const section = sections[row - 1];
    const reason = section === undefined ? '' : section.status === 'planned' ? (section.plan.prune.refused === undefined ? '' : `  ${PRUNE_REFUSED}`) : `  ${statusText(section)}`;
    return `${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')}${reason}`.trimEnd();
  });
  const bodies = sections.map((s) => `== ${s.name} · ${printable(s.target)} ==\n${s.status === 'planned' ? renderPlanText(s.plan) : `${statusText(s)}\n`}`);
  return `${[head, '', ...table, '', ...bodies].join('\n')}`;
}

/** The same as a pull-request comment: one comment, the summary table, then one section per environment. */
export function renderEnvironmentsMarkdown(sections: readonly EnvironmentSection[]): string {
  const columns = summaryColumns(sections);
  const out = [`### dashcd plan for ${sections.length} environment${sections.length === 1 ? '' : 's'}`, '', `| environment | ${columns.join(' | ')} |`, `| --- |${' ---: |'.repeat(columns.length)}`];
  for (const s of sections) {
    const refused = s.status === 'planned' && s.plan.prune.refused !== undefined ? ` ⛔ ${PRUNE_REFUSED}` : '';
    out.push(`| \`${s.name}\`${refused} | ${s.status === 'planned' ? cells(s, columns).join(' | ') : `${escapeText(statusText(s, 'in its section'))}${' |'.repeat(columns.length - 1)}`} |`);
  }
  for (const s of sections) {
    out.push('', `#### \`${s.name}\` · ${escapeText(s.target)}`, '');
    // The single plan's own heading (its first line) gives way to the environment's.
    out.push(s.status === 'planned' ? renderPlanMarkdown(s.plan).split('\n').slice(2).join('\n').trimEnd() : s.status === 'invalid' ? invalidMarkdown(s) : escapeText(statusText(s)));
  }
  return `${out.join('\n')}\n`;
}

export function renderEnvironmentsJson(sections: readonly EnvironmentSection[]): string {
  const git = firstPlan(sections);
  const json: EnvironmentsPlanJson = {
    git: git ? planToJson(git).git : null,
    environments: sections.map((s) => {
      const plan = s.status === 'planned' ? planToJson(s.plan) : undefined;
      const error = s.status === 'planned' ? null : s.status === 'invalid' ? `invalid: ${count(problemTotal(s.diagnostics), 'problem')}; nothing planned` : statusText(s);
      return { name: s.name, target: s.target, changes: plan?.changes ?? [], summary: plan?.summary ?? null, prune: plan?.prune ?? null, error, diagnostics: s.status === 'invalid' ? diagnosticsToJson(s.diagnostics) : [] };
    }),
  };
  return `${JSON.stringify(json, null, 2)}\n`;
}

/** Beside a summary row whose plan the prune guard refused: its counts are what apply would not do. */
const PRUNE_REFUSED = 'prune refused: apply writes nothing';

function firstPlan(sections: readonly EnvironmentSection[]): Plan | undefined {
  for (const s of sections) if (s.status === 'planned') return s.plan;
  return undefined;
}

/** The plan's own summary members, in its order: the table follows whatever actions plans have. */
function summaryColumns(sections: readonly EnvironmentSection[]): (keyof PlanSummary)[] {
  const plan = firstPlan(sections);
  return plan ? (Object.keys(plan.summary) as (keyof PlanSummary)[]) : [...ACTION_ORDER];
}

function cells(section: EnvironmentSection, columns: readonly (keyof PlanSummary)[]): string[] {
  return columns.map((c) => (section.status === 'planned' ? String(section.plan.summary[c]) : '-'));
}

/** An invalid environment's section in markdown holds its problems: a comment has no "above" to point to. */
function invalidMarkdown(section: Extract<EnvironmentSection, { status: 'invalid' }>): string {
  return `invalid: ${count(problemTotal(section.diagnostics), 'problem')}; nothing planned\n\n${diagnosticsMarkdown(section.diagnostics)}`;
}

/** Why a section has no plan; an invalid one's problems are `where` (printed before a text plan). */
function statusText(section: Exclude<EnvironmentSection, { status: 'planned' }>, where = 'listed above'): string {
  if (section.status === 'invalid') return `invalid: ${count(problemTotal(section.diagnostics), 'problem')} (${where}); nothing planned`;
  return section.status === 'not-planned' ? `not planned: ${printable(section.error)}` : `unreachable: ${printable(section.error)}`;
}
