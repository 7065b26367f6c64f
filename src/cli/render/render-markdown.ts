import type { Plan, PlanChange } from '../../plan/build-plan.js';
import { fitToBudget } from './markdown-budget.js';
import { dirtyText, kindLabel, NO_COMMITS, patchLines, summaryText } from '../../plan/patch-lines.js';
import { printable } from '../../lib/printable.js';

type PatchedChange = Extract<PlanChange, { action: 'update' | 'adopt' }>;

/** One huge update must not swallow the rest of the comment: past this many lines its diff is cut. */
export const MAX_PATCH_LINES_PER_UPDATE = 100;

const ACTION_LABEL: Record<PlanChange['action'], string> = {
  create: '`+ create`',
  adopt: '`! adopt`',
  update: '`~ update`',
  delete: '`- delete`',
  unchanged: '`  unchanged`',
  orphan: '`- orphan (kept)`',
};

export interface MarkdownOptions {
  /** Where the whole plan can be read when diffs had to be shortened (the file `--out` wrote); default: a command. */
  fullPlan?: string;
  /** The whole plan for a file (`--out plan.md`): no comment budget, no diff cut at MAX_PATCH_LINES_PER_UPDATE. */
  complete?: boolean;
}

/**
 * The plan as a pull-request comment: a heading naming the commit, the target, a compact table of what would change
 * (unchanged dashboards are only counted), what merging will and will not delete, then one collapsible `<details>`
 * per update or adoption with its patch lines in a `diff` block. Never longer than a GitHub comment
 * (markdown-budget.ts): the table stays whole and diffs are shortened, saying how many. Names and files are
 * escaped, so a dashboard name cannot inject markup into the comment.
 */
export function renderPlanMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const head = [heading(plan), '', context(plan), '', `**${summaryText(plan)}**`, ...pruneNotes(plan)];
  const listed = plan.changes.filter((c) => c.action !== 'unchanged');
  const table = listed.length > 0 ? ['', '| action | dashboard | file |', '| --- | --- | --- |', ...listed.map(tableRow)] : ['', 'No changes.'];
  const patched = plan.changes.filter((c): c is PatchedChange => c.action === 'update' || c.action === 'adopt');
  const cap = options.complete === true ? Infinity : MAX_PATCH_LINES_PER_UPDATE;
  const diffs = patched.map((change) => ({ full: details(change, cap).join('\n'), short: shortDetails(change) }));
  if (options.complete === true) return `${[...head, ...table, ...diffs.map((d) => d.full)].join('\n')}\n`;
  const fullPlan = options.fullPlan === undefined ? '`dashcd plan --output json` (or `--out plan.json`)' : code(options.fullPlan);
  return fitToBudget({ head: [...head, ...table].join('\n'), diffs, fullPlan });
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

/** What merging does about dashboards whose file is gone: a reviewer must not have to know the prune setting. */
function pruneNotes({ prune, summary }: Plan): string[] {
  const notes: string[] = [];
  if (prune.refused !== undefined) notes.push(`⛔ **Prune refused:** ${escapeText(prune.refused)}. Applying this plan writes nothing.`);
  else if (summary.delete > 0) notes.push(`🗑️ **Merging deletes ${summary.delete} dashboard${summary.delete === 1 ? '' : 's'}** (pruning is on).`);
  if (summary.orphan > 0) {
    notes.push(`Merging will **not** delete the ${summary.orphan} orphan${summary.orphan === 1 ? '' : 's'} listed below: pruning is off (\`prune: true\` in dashcd.yaml turns it on).`);
  }
  return notes.length > 0 ? ['', ...notes] : [];
}

function tableRow(change: PlanChange): string {
  const label = kindLabel(change);
  const file = change.action === 'orphan' || change.action === 'delete' ? `— (id ${code(change.id)}${change.owner ? `, owner ${escapeText(change.owner)}` : ''})` : code(change.file);
  const trash = change.action === 'delete' && label !== '' ? ', to the trash' : change.action === 'create' && change.heldInTrash ? `, id held in the trash: ${code(`dashcd trash restore ${change.id}`)} first` : '';
  return `| ${ACTION_LABEL[change.action]} | ${escapeText(change.name)}${label === '' ? '' : ` (${label})`} | ${file}${trash} |`;
}

function summaryLine(change: PatchedChange, count: number): string {
  const verb = change.action === 'adopt' ? '! adopt' : '~ update';
  return `<summary>${verb} <b>${escapeProse(change.name)}</b> (<code>${escapeHtml(change.file)}</code>): ${count} change${count === 1 ? '' : 's'}</summary>`;
}

function details(change: PatchedChange, cap: number): string[] {
  const all = patchLines(change).map(printable);
  const shown = all.slice(0, cap);
  if (all.length > shown.length) shown.push(`… ${all.length - shown.length} more lines (see the full plan)`);
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(shown) + 1));
  return ['', `<details>${summaryLine(change, change.patch.length)}`, '', `${fence}diff`, ...shown, fence, '', '</details>'];
}

/** The diff's place when the comment has no room for it: which dashboard, how many changes, where to read them. */
function shortDetails(change: PatchedChange): string {
  return ['', `<details>${summaryLine(change, change.patch.length)}`, '', '_Diff shortened to fit the comment; see the full plan._', '', '</details>'].join('\n');
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

/** Text from a file or the target in the comment's prose (in HTML): no markup, no mentions. */
function escapeProse(text: string): string {
  return withoutMentions(escapeHtml(text));
}

/** Plain text in a Markdown paragraph or table cell: no emphasis, links, code, mentions or cell breaks from user data. */
export function escapeText(text: string): string {
  return withoutMentions(escapeHtml(text).replace(/[\\`*_[\]~#|!]/g, (c) => `\\${c}`));
}

/**
 * A zero-width space after each `@` that starts a name, so a dashboard named `… @octocat` or `@acme/oncall` notifies
 * no one when a bot posts the plan (GitHub links no mention in code, so only prose needs it). Last, as an entity whose
 * `#` must not be escaped.
 */
function withoutMentions(escaped: string): string {
  return escaped.replace(/@(?=[A-Za-z0-9])/g, '@&#8203;');
}
