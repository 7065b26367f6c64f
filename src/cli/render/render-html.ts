import type { Plan } from '../../plan/build-plan.js';
import { renderHtmlPage, type HtmlSection } from '../../preview/render-html.js';
import { printable, summaryText } from '../../plan/patch-lines.js';
import { planPictures } from '../../preview/plan-pictures.js';

/**
 * The plan as one self-contained page: the summary, then per dashboard to be written its before/after picture and
 * the plan's diff lines. No script or external address, so a CI artifact opens offline.
 */
export function renderPlanHtml(plan: Plan): string {
  const intro = [`Target: ${printable(plan.target)}`, `${summaryText(plan)}.`];
  if (plan.git?.commit) intro.push(`Commit ${plan.git.commit}${plan.git.branch ? ` on ${plan.git.branch}` : ''}${plan.git.dirty ? ' (uncommitted changes)' : ''}`);
  const sections: HtmlSection[] = planPictures(plan).map((p) => ({
    heading: `${p.change.action} ${printable(p.change.name)}${'file' in p.change ? ` (${p.change.file})` : ''}`,
    svg: p.svg,
    lines: p.diffLines,
  }));
  const others = plan.changes.filter((c) => c.action !== 'unchanged' && c.action !== 'create' && c.action !== 'update');
  if (others.length > 0) sections.push({ heading: 'Other changes', lines: others.map((c) => `- ${c.action} ${printable(c.name)} (id ${c.id})`) });
  return renderHtmlPage('dashcd plan', intro, sections);
}
