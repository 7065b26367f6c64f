import type { Operation } from 'fast-json-patch';
import { ACTION_ORDER, type Plan, type PlanAction, type PlanChange, type TrashHolder } from '../../plan/build-plan.js';

/**
 * `dashcd plan --output json`: a stable contract for machines. Keys always in this order, every key always present:
 *
 *     {
 *       "git": null | { "commit": string | null, "shortCommit": string | null, "branch": string | null, "dirty": boolean },
 *       "target": string,
 *       "scope": "full" | "partial",           // partial: a selective run (paths, a subfolder); orphans not checked
 *       "prune": { "enabled": boolean, "refused": string | null },  // refused: the guard's reason; nothing is applied
 *       "changes": [
 *         { "action": "create" | "adopt" | "update" | "delete" | "unchanged" | "orphan",
 *           "kind": "dashboard" | "document",  // a classic dashboard, or a platform dashboard or notebook
 *           "id": string,                      // dashboard UUID, or document id
 *           "name": string,                    // dashboardMetadata.name (of the file; of the live one for delete/orphan)
 *           "file": string | null,             // null for delete and orphan (no file claims them)
 *           "patch": RFC6902Operation[] | null, // update and adopt: live → desired over normalised values; else null
 *           "heldInTrash": { "name": string, "deletedTime": string, "deletedBy": string } | null
 *                                              // a document create whose id a trashed document holds (apply is refused)
 *         }, …                                 // sorted by (action: create, adopt, update, delete, unchanged, orphan; file; id)
 *       ],
 *       "summary": { "create": n, "adopt": n, "update": n, "delete": n, "unchanged": n, "orphan": n }
 *     }
 *
 * `adopt`: the file's id belongs to a live dashboard without the ownership tag; applying writes the file and the
 * tag. `delete`: an owned dashboard without a file, deleted because pruning is on; `orphan`: the same, kept.
 *
 * `git` is null outside a git work tree; `git.commit` (and `shortCommit`) null in a work tree whose branch has no
 * commit yet (right after `git init`). `git.dirty` means uncommitted changes under the dashboards folder or in its dashcd.yaml.
 * Pretty-printed with two spaces and a final newline.
 */
export interface PlanJson {
  git: { commit: string | null; shortCommit: string | null; branch: string | null; dirty: boolean } | null;
  target: string;
  scope: 'full' | 'partial';
  prune: { enabled: boolean; refused: string | null };
  changes: { action: PlanAction; kind: 'dashboard' | 'document'; id: string; name: string; file: string | null; patch: Operation[] | null; heldInTrash: TrashHolder | null }[];
  summary: Record<PlanAction, number>;
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
    scope: plan.scope,
    prune: { enabled: plan.prune.enabled, refused: plan.prune.refused ?? null },
    changes: plan.changes.map(changeToJson),
    summary: Object.fromEntries(ACTION_ORDER.map((action) => [action, summary[action]])) as Record<PlanAction, number>,
  };
}

function changeToJson(change: PlanChange): PlanJson['changes'][number] {
  return {
    action: change.action,
    kind: change.kind ?? 'dashboard',
    id: change.id,
    name: change.name,
    file: change.action === 'orphan' || change.action === 'delete' ? null : change.file,
    patch: change.action === 'update' || change.action === 'adopt' ? change.patch.map(operationToJson) : null,
    heldInTrash: change.action === 'create' && change.heldInTrash ? { name: change.heldInTrash.name, deletedTime: change.heldInTrash.deletedTime, deletedBy: change.heldInTrash.deletedBy } : null,
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
