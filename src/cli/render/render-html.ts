import type { Plan } from '../../plan/build-plan.js';
import { renderHtmlPage, type HtmlSection } from '../../preview/render-html.js';
import { commitText, summaryText } from '../../plan/patch-lines.js';
import { printable } from '../../lib/printable.js';
import { planPictures } from '../../preview/plan-pictures.js';
import { formatDiagnostic } from '../../desired/diagnostic.js';
import type { EnvironmentSection } from './render-environments.js';
import { problemTotal } from '../../desired/capped-problems.js';

/**
 * The plan as one self-contained page: the summary, then per dashboard to be written its before/after picture and
 * the plan's diff lines. No script or external address, so a CI artifact opens offline.
 */
export function renderPlanHtml(plan: Plan): string {
  const intro = [`Target: ${printable(plan.target)}`, `${summaryText(plan)}.`];
  if (plan.git?.commit) intro.push(`Commit ${plan.git.commit}${plan.git.branch ? ` on ${plan.git.branch}` : ''}${plan.git.dirty ? ' (uncommitted changes)' : ''}`);
  return renderHtmlPage('dashcd plan', intro, planSections(plan));
}

/**
 * A plan over several environments as one page: one section per environment (its target and summary, then its
 * dashboards as renderPlanHtml draws them), or why it has no plan, with its problems if invalid.
 */
export function renderEnvironmentsHtml(sections: readonly EnvironmentSection[]): string {
  const git = sections.find((s) => s.status === 'planned')?.plan.git;
  const title = `dashcd plan for ${sections.length} environment${sections.length === 1 ? '' : 's'}`;
  const intro = git ? [printable(commitText(git))] : [];
  return renderHtmlPage(title, intro, sections.map(environmentSection));
}

function environmentSection(s: EnvironmentSection): HtmlSection {
  const heading = `${s.name} · ${printable(s.target)}`;
  if (s.status === 'planned') return { heading, env: s.name, intro: [`${summaryText(s.plan)}.`], sections: planSections(s.plan) };
  if (s.status === 'invalid') return { heading, env: s.name, intro: [`invalid: ${problemTotal(s.diagnostics)} problem${problemTotal(s.diagnostics) === 1 ? '' : 's'}; nothing planned`], lines: s.diagnostics.map(formatDiagnostic) };
  return { heading, env: s.name, intro: [`${s.status === 'not-planned' ? 'not planned' : 'unreachable'}: ${printable(s.error)}`] };
}

function planSections(plan: Plan): HtmlSection[] {
  const sections: HtmlSection[] = planPictures(plan).map((p) => ({
    heading: `${p.change.action} ${printable(p.change.name)}${'file' in p.change ? ` (${p.change.file})` : ''}`,
    svg: p.svg,
    lines: p.change.action === 'create' && p.change.heldInTrash ? [...p.diffLines, `its id is held in the trash by ${printable(p.change.heldInTrash.name)}: apply is refused until dashcd trash restore ${p.change.id}`] : p.diffLines,
  }));
  const others = plan.changes.filter((c) => c.action !== 'unchanged' && c.action !== 'create' && c.action !== 'update');
  if (others.length > 0) sections.push({ heading: 'Other changes', lines: others.map((c) => `- ${c.action} ${printable(c.name)} (id ${c.id})`) });
  return sections;
}
