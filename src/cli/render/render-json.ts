import type { Operation } from 'fast-json-patch';
import type { Plan, PlanAction, PlanChange } from '../../plan/build-plan.js';

/**
 * `dashcd plan --output json`: a stable contract for machines. Keys always in this order, every key always present:
 *
 *     {
 *       "git": null | { "commit": string | null, "shortCommit": string | null, "branch": string | null, "dirty": boolean },
 *       "target": string,
 *       "changes": [
 *         { "action": "create" | "update" | "unchanged" | "orphan",
 *           "id": string,                      // dashboard UUID
 *           "name": string,                    // dashboardMetadata.name (of the file; of the live one for orphans)
 *           "file": string | null,             // null for orphans (no file claims them)
 *           "patch": RFC6902Operation[] | null // update only: live → desired over normalised values; else null
 *         }, …                                 // sorted by (action: create, update, unchanged, orphan; file; id)
 *       ],
 *       "summary": { "create": number, "update": number, "unchanged": number, "orphan": number }
 *     }
 *
 * `git` is null outside a git work tree; `git.commit` (and `shortCommit`) null in a work tree whose branch has no
 * commit yet (right after `git init`). `git.dirty` means uncommitted changes under the dashboards folder. Orphans are deleted only by `apply --prune`.
 * Pretty-printed with two spaces and a final newline.
 */
export interface PlanJson {
  git: { commit: string | null; shortCommit: string | null; branch: string | null; dirty: boolean } | null;
  target: string;
  changes: { action: PlanAction; id: string; name: string; file: string | null; patch: Operation[] | null }[];
  summary: { create: number; update: number; unchanged: number; orphan: number };
}

export function renderPlanJson(plan: Plan): string {
  return `${JSON.stringify(planToJson(plan), null, 2)}\n`;
}

/** Built member by member (not spread from the plan) so key order and key set are fixed whatever the plan holds. */
export function planToJson(plan: Plan): PlanJson {
  const { git, summary } = plan;
  return {
    git: git ? { commit: git.commit, shortCommit: git.shortCommit, branch: git.branch ?? null, dirty: git.dirty } : null,
    target: plan.target,
    changes: plan.changes.map(changeToJson),
    summary: { create: summary.create, update: summary.update, unchanged: summary.unchanged, orphan: summary.orphan },
  };
}

function changeToJson(change: PlanChange): PlanJson['changes'][number] {
  return {
    action: change.action,
    id: change.id,
    name: change.name,
    file: change.action === 'orphan' ? null : change.file,
    patch: change.action === 'update' ? change.patch.map(operationToJson) : null,
  };
}

/** RFC 6902 member order: op, path, then from/value. */
function operationToJson(op: Operation): Operation {
  switch (op.op) {
    case 'add':
    case 'replace':
    case 'test':
      return { op: op.op, path: op.path, value: op.value };
    case 'move':
    case 'copy':
      return { op: op.op, path: op.path, from: op.from };
    case 'remove':
      return { op: op.op, path: op.path };
    default:
      return op;
  }
}
