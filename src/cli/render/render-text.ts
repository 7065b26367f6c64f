import type { Plan, PlanChange } from '../../plan/build-plan.js';
import { ACTION_COLOR, markColor, painter, type Paint } from './colors.js';
import { gitText, kindLabel, patchLines, summaryText } from '../../plan/patch-lines.js';
import { printable } from '../../lib/printable.js';

const PATCH_INDENT = '    ';

/**
 * The plan for people, on a terminal or in CI logs:
 *
 *     Plan for http://127.0.0.1:8080/e/local at commit 1a2b3c4 on main (uncommitted changes in dashboards/)
 *     (`Plan for … (git: no commits yet on main)` right after `git init`; `(not in a git work tree)` outside git)
 *
 *     + create  Service health  (dashboards/service-health.yaml)
 *     ! adopt   Checkout  (dashboards/checkout.yaml) — takes over a dashboard made outside dashcd
 *         + dashboardMetadata.tags[0]: "managed-by:dashcd"
 *     ~ update  Hosts  (dashboards/hosts.yaml)
 *         ~ tiles[3].name: "CPU" → "CPU usage"
 *     - delete  Retired  (id 5d7c…, owner ops)
 *     - orphan  Old dashboard  (id 5d7c…, owner ops) — kept: pruning is off
 *     + create  Checkout  (dashboards/checkout-app.yaml, platform dashboard)
 *     - delete  Triage  (document, id triage-3c1f…) — to the trash (dashcd trash restore triage-3c1f…)
 *
 *     Plan: 1 to create, 1 to adopt, 1 to update, 1 to delete, 4 unchanged, 1 orphan kept.
 *
 * Unchanged dashboards are only counted. With `color` (a terminal), actions and patch lines are coloured.
 * Pure: the same plan gives the same bytes.
 */
export function renderPlanText(plan: Plan, options: { color?: boolean } = {}): string {
  const paint = painter(options.color === true);
  // concat, not push(...): a spread of a few hundred thousand lines passes the stack.
  let lines = [headline(plan)];
  const body = plan.changes.flatMap((change) => changeLines(change, paint));
  if (body.length > 0) lines = lines.concat('', body);
  if (plan.prune.refused !== undefined) lines.push('', paint('red', `✗ ${plan.prune.refused}`));
  const { create, adopt, update, delete: deletes } = plan.summary;
  // Refused, the counts are what was asked, not what apply would do: said so on the line that counts them.
  const heading = plan.prune.refused !== undefined ? 'Refused plan (apply writes nothing)' : create + adopt + update + deletes > 0 ? 'Plan' : 'No changes';
  lines.push('', `${heading}: ${summaryText(plan)}.`);
  return `${lines.join('\n')}\n`;
}

function headline(plan: Plan): string {
  const target = printable(plan.target);
  if (!plan.git) return `Plan for ${target} (not in a git work tree)`;
  return printable(`Plan for ${target} ${gitText(plan.git)}`);
}

function changeLines(change: PlanChange, paint: Paint): string[] {
  const name = printable(change.name);
  const head = (text: string): string => paint(ACTION_COLOR[change.action], text);
  const label = kindLabel(change);
  const of = label === '' ? '' : `, ${label}`;
  switch (change.action) {
    case 'create': {
      const held = change.heldInTrash;
      const note = held ? ` — its id is held in the trash by ${printable(held.name)} (deleted ${printable(held.deletedTime)} by ${printable(held.deletedBy)}): apply is refused until dashcd trash restore ${printable(change.id)}, or give the file another document.id` : '';
      return [head(`+ create  ${name}  (${printable(change.file)}${of})${note}`)];
    }
    case 'adopt':
    case 'update': {
      const where = `${printable(change.file)}${of}`;
      const title = change.action === 'adopt' ? `! adopt   ${name}  (${where}) — takes over a ${label || 'dashboard'} made outside dashcd` : `~ update  ${name}  (${where})`;
      return [head(title)].concat(patchLines(change).map((l) => PATCH_INDENT + paint(markColor(l), printable(l))));
    }
    case 'delete':
    case 'orphan': {
      const owner = change.owner ? `, owner ${printable(change.owner)}` : '';
      const kept = change.action === 'orphan' ? ' — kept: pruning is off (prune: true in dashcd.yaml or --prune deletes it)' : '';
      const trash = change.action === 'delete' && label !== '' ? ` — to the trash (dashcd trash restore ${change.id})` : '';
      return [head(`- ${change.action}  ${name}  (${label === '' ? '' : `${label}, `}id ${change.id}${owner})${kept}${trash}`)];
    }
    case 'unchanged':
      return [];
  }
}
