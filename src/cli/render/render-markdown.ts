import type { Plan, PlanChange } from '../../plan/build-plan.js';
import { dirtyText, NO_COMMITS, patchLines, printable, summaryText } from './patch-lines.js';

type UpdateChange = Extract<PlanChange, { action: 'update' }>;

/** A PR comment has a size limit (65,536 characters on GitHub); one huge update must not swallow the rest. */
export const MAX_PATCH_LINES_PER_UPDATE = 100;

const ACTION_LABEL: Record<PlanChange['action'], string> = {
  create: '`+ create`',
  update: '`~ update`',
  unchanged: '`  unchanged`',
  orphan: '`- orphan`',
};

/**
 * The plan as a pull-request comment: a heading naming the commit, the target, a compact table of what would change
 * (unchanged dashboards are only counted), then one collapsible `<details>` per update with its patch lines in a
 * `diff` block. Names and files are escaped, so a dashboard name cannot inject markup into the comment.
 */
export function renderPlanMarkdown(plan: Plan): string {
  const out = [heading(plan), '', context(plan), '', `**${summaryText(plan)}**`];
  const listed = plan.changes.filter((c) => c.action !== 'unchanged');
  if (listed.length > 0) out.push('', '| action | dashboard | file |', '| --- | --- | --- |', ...listed.map(tableRow));
  else out.push('', 'No changes.');
  for (const change of plan.changes) {
    if (change.action === 'update') out.push('', ...details(change));
  }
  return `${out.join('\n')}\n`;
}

function heading({ git }: Plan): string {
  if (!git) return '### dashcd plan (not in a git work tree)';
  const branch = git.branch ? ` on ${code(git.branch)}` : '';
  if (git.commit === null) return `### dashcd plan (git: ${NO_COMMITS}${branch})`;
  return `### dashcd plan for ${code(git.shortCommit)}${branch}`;
}

function context({ git, target }: Plan): string {
  const parts = [`Target: ${code(target)}`];
  if (git?.commit === null) parts.push(`Git: ${NO_COMMITS}`);
  else if (git) parts.push(`Commit ${code(git.commit)}${git.branch ? ` on ${code(git.branch)}` : ' (detached HEAD)'}`);
  if (git?.dirty) parts.push(`⚠️ ${escapeText(dirtyText(git))}`);
  return parts.join(' · ');
}

function tableRow(change: PlanChange): string {
  const file = change.action === 'orphan' ? `— (id ${code(change.id)}${change.owner ? `, owner ${escapeText(change.owner)}` : ''})` : code(change.file);
  return `| ${ACTION_LABEL[change.action]} | ${escapeText(change.name)} | ${file} |`;
}

function details(change: UpdateChange): string[] {
  const all = patchLines(change).map(printable);
  const shown = all.slice(0, MAX_PATCH_LINES_PER_UPDATE);
  if (all.length > shown.length) shown.push(`… ${all.length - shown.length} more (see \`dashcd plan\` for all)`);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(shown) + 1));
  const count = `${all.length} change${all.length === 1 ? '' : 's'}`;
  return [
    `<details><summary>~ update <b>${escapeHtml(change.name)}</b> (<code>${escapeHtml(change.file)}</code>): ${count}</summary>`,
    '',
    `${fence}diff`,
    ...shown,
    fence,
    '',
    '</details>',
  ];
}

function longestBacktickRun(lines: readonly string[]): number {
  let longest = 0;
  for (const line of lines) for (const run of line.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** Inline code as HTML, which (unlike a backtick span) holds any text and survives inside a table cell. */
function code(text: string): string {
  return `<code>${escapeHtml(text).replace(/\|/g, '&#124;')}</code>`;
}

function escapeHtml(text: string): string {
  return printable(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Plain text in a Markdown paragraph or table cell: no emphasis, links, code or cell breaks from user data. */
function escapeText(text: string): string {
  return escapeHtml(text).replace(/[\\`*_[\]~#|!]/g, (c) => `\\${c}`);
}
