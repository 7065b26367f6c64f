import type { Plan, PlanChange } from '../../plan/build-plan.js';
import { commitText, dirtyText, patchLines, printable, summaryText } from './patch-lines.js';

const PATCH_INDENT = '    ';

/**
 * The plan for people, on a terminal or in CI logs:
 *
 *     Plan for http://127.0.0.1:8080/e/local at commit 1a2b3c4 on main (uncommitted changes in dashboards/)
 *     (`Plan for … (git: no commits yet on main)` right after `git init`; `(not in a git work tree)` outside git)
 *
 *     + create  Service health  (dashboards/service-health.yaml)
 *     ~ update  Hosts  (dashboards/hosts.yaml)
 *         ~ tiles[3].name: "CPU" → "CPU usage"
 *     - orphan  Old dashboard  (id 5d7c…, owner ops) — apply --prune deletes it
 *
 *     Plan: 1 to create, 1 to update, 4 unchanged, 1 orphan.
 *
 * Unchanged dashboards are only counted. Pure: the same plan gives the same bytes.
 */
export function renderPlanText(plan: Plan): string {
  const lines = [headline(plan)];
  const body = plan.changes.flatMap(changeLines);
  if (body.length > 0) lines.push('', ...body);
  lines.push('', `${plan.summary.create + plan.summary.update > 0 ? 'Plan' : 'No changes'}: ${summaryText(plan)}.`);
  return `${lines.join('\n')}\n`;
}

function headline(plan: Plan): string {
  const target = printable(plan.target);
  if (!plan.git) return `Plan for ${target} (not in a git work tree)`;
  const dirty = plan.git.dirty ? ` (${dirtyText(plan.git)})` : '';
  return printable(`Plan for ${target} ${commitText(plan.git)}`) + printable(dirty);
}

function changeLines(change: PlanChange): string[] {
  const name = printable(change.name);
  switch (change.action) {
    case 'create':
      return [`+ create  ${name}  (${printable(change.file)})`];
    case 'update':
      return [`~ update  ${name}  (${printable(change.file)})`, ...patchLines(change).map((l) => PATCH_INDENT + l)];
    case 'orphan': {
      const owner = change.owner ? `, owner ${printable(change.owner)}` : '';
      return [`- orphan  ${name}  (id ${change.id}${owner}) — apply --prune deletes it`];
    }
    case 'unchanged':
      return [];
  }
}
