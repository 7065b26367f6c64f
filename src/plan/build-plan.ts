import type { Operation } from 'fast-json-patch';
import type { GitInfo } from '../desired/git-info.js';
import type { Dashboard, LiveDashboard } from '../schema/dashboard.js';
import { diffJson, jsonEqual } from './diff.js';
import { compareCodeUnits, type JsonValue } from './json-value.js';
import { pruneRefusal } from './prune-guard.js';

/**
 * The part of the loader's `DesiredDashboard` (desired/load-desired.ts) the plan reads. Declared structurally so
 * the plan depends on the shape, not on the loader module.
 */
export interface DesiredInput {
  id: string;
  file: string;
  name: string;
  /** The file's dashboard; an `id` or `metadata` in it is replaced by the plan's. */
  readonly body: Dashboard;
  /**
   * `body` as JSON text (without `id` and `metadata`), when the caller holds it: a live dashboard whose text is what
   * apply wrote from it is then unchanged without parsing either (plan/written-text.ts).
   */
  bodyJson?: string;
}

interface PatchedWrite {
  id: string;
  name: string;
  file: string;
  desired: Dashboard;
  /**
   * RFC 6902, live → desired, over the kind's compared forms (CompareRules): what would change, not the write body.
   * Applies in order to the live dashboard's compared form (diff.ts); indexes of kept and added items are the file's.
   */
  patch: Operation[];
  /** `before[i]`: the live value `patch[i]` replaces or removes (null for `add`), to show "old → new". */
  before: (JsonValue | null)[];
}

/**
 * One entry per desired file, plus one per owned live dashboard no file claims. A missing side is a variant, not a
 * null: no live dashboard → `create`, no file → `delete` when pruning is on, else `orphan` (kept). A file whose id
 * matches a live dashboard without the ownership tag is a takeover, `adopt`: its write adds the tag (which the patch
 * shows), so from then on prune may delete it. Only `update` and `adopt` carry a patch.
 */
export type PlanChange =
  | { action: 'create'; id: string; name: string; file: string; desired: Dashboard }
  | ({ action: 'adopt' } & PatchedWrite)
  | ({ action: 'update' } & PatchedWrite)
  | { action: 'delete'; id: string; name: string; owner?: string }
  | { action: 'unchanged'; id: string; name: string; file: string }
  | { action: 'orphan'; id: string; name: string; owner?: string };

export type PlanAction = PlanChange['action'];

export type PlanSummary = Record<PlanAction, number>;

export interface Plan {
  /** Sorted by (action, file, id), so every rendering is byte-identical across runs. */
  changes: PlanChange[];
  summary: PlanSummary;
  /** `partial`: only some files were read (a selective run, or the daemon's incremental pass): orphans not checked. */
  scope: 'full' | 'partial';
  /**
   * Whether owned orphans are deleted (`delete`) or kept (`orphan`), and when the prune guards (prune-guard.ts)
   * refuse the deletions, why: the whole run must then stop before anything is written.
   */
  prune: { enabled: boolean; refused?: string };
  git?: GitInfo;
  /** Human-readable target (never a token). */
  target: string;
}

export interface BuildPlanInput {
  desired: readonly DesiredInput[];
  /** Full GETs of the desired ids that exist on the target, keyed by desired id. */
  live: ReadonlyMap<string, LiveDashboard>;
  /** Live dashboards carrying the ownership tag: the orphan candidates. */
  liveOwned: readonly { id: string; name: string; owner?: string }[];
  ownershipTag: string;
  ignore: readonly string[];
  kind: ComparedKind;
  target: string;
  git?: GitInfo;
  /** `partial`: only some files are being reconciled (the daemon), so absence from `desired` says nothing. */
  scope?: 'full' | 'partial';
  /** Delete owned orphans, at most `maxDelete` of them (more, or none left in the folder, refuses: prune-guard.ts). */
  prune?: { maxDelete: number };
}

export const ACTION_ORDER: readonly PlanAction[] = ['create', 'adopt', 'update', 'delete', 'unchanged', 'orphan'];

/**
 * What a plan asks of the kind its items are (kinds/kind.ts): the compared form and the ownership mark. Declared
 * structurally so plan/ never imports kinds/ and never knows which kind it compares.
 */
export interface ComparedKind {
  comparedForm(value: unknown, ignore: readonly string[]): JsonValue;
  isOwned(live: LiveDashboard, mark: string): boolean;
  withOwnership<T extends LiveDashboard>(body: T, mark: string): T;
}

/** The rules every dashboard of one plan is compared under. */
export interface CompareRules {
  ownershipTag: string;
  ignore: readonly string[];
  kind: ComparedKind;
}

/** Pure and synchronous: desired + live in, a serialisable plan out. */
export function buildPlan(input: BuildPlanInput): Plan {
  return assemblePlan(input, input.desired.map((d) => planDashboard(d, input.live.get(d.id), input)));
}

/**
 * The plan from one change per desired file (planDashboard's, in any order), adding the orphans. Callers that
 * compare as each live dashboard arrives (reconcile/plan-against-live.ts) use it so they never hold all of them.
 */
export function assemblePlan(input: Omit<BuildPlanInput, 'live' | 'kind'>, desiredChanges: readonly PlanChange[]): Plan {
  const changes = [...desiredChanges];
  const scope = input.scope ?? 'full';
  // Only a full scope prunes: absence from a partial one says nothing.
  const maxDelete = scope === 'full' ? input.prune?.maxDelete : undefined;
  const pruning = maxDelete !== undefined;
  const orphans = scope === 'full' ? findOrphans(input.desired, input.liveOwned, pruning ? 'delete' : 'orphan') : [];
  changes.push(...orphans);
  changes.sort(compareChanges);
  const refused = pruning ? pruneRefusal({ desiredCount: input.desired.length, orphanCount: orphans.length, maxDelete }) : undefined;
  const prune = { enabled: pruning, ...(refused !== undefined ? { refused } : {}) };
  return { changes, summary: summarize(changes), scope, prune, ...(input.git ? { git: input.git } : {}), target: input.target };
}

/**
 * Whether applying would change anything on the target. Kept orphans do not count: with pruning off a leftover
 * owned dashboard must not make `--detailed-exitcode` report pending changes forever.
 */
export function hasChanges(plan: Plan): boolean {
  const { create, adopt, update, delete: deletes } = plan.summary;
  return create + adopt + update + deletes > 0;
}

/** One desired file against its live dashboard (undefined: none with its id). */
export function planDashboard(desired: DesiredInput, live: LiveDashboard | undefined, rules: CompareRules): PlanChange {
  const { id, name, file } = desired;
  const { ownershipTag: tag, ignore, kind } = rules;
  const written = bodyToWrite(desired, tag, kind);
  if (!live) return { action: 'create', id, name, file, desired: written };
  // A live dashboard without the tag was made elsewhere (or pulled): writing it is a takeover the reviewer must see,
  // even when the content is equal, since from then on prune may delete it. Its patch includes the tag.
  if (!kind.isOwned(live, tag)) return { action: 'adopt', id, name, file, desired: written, ...diffJson(kind.comparedForm(live, ignore), kind.comparedForm(written, ignore)) };
  // Stryker disable next-line ConditionalExpression: speed only; the normalised diff of the same content is empty too
  if (sameContent(live, written)) return { action: 'unchanged', id, name, file };
  const { patch, before } = diffJson(kind.comparedForm(live, ignore), kind.comparedForm(written, ignore));
  if (patch.length === 0) return { action: 'unchanged', id, name, file };
  return { action: 'update', id, name, file, desired: written, patch, before };
}

/**
 * Equal data apart from the members the compared form drops anyway (`id`, `metadata`) has equal compared forms,
 * since a kind's comparedForm depends on the value only: so a live dashboard that is exactly what apply wrote (the
 * embedded server, or any target that adds nothing) is unchanged without computing either side's.
 */
// Stryker disable next-line BlockStatement: speed only (see planDashboard); answering nothing sends every dashboard to the diff
function sameContent(live: LiveDashboard, written: Dashboard): boolean {
  const { id: _liveId, metadata: _liveMetadata, ...liveContent } = live;
  const { id: _writtenId, metadata: _writtenMetadata, ...writtenContent } = written;
  return jsonEqual(liveContent, writtenContent);
}

/** The PUT body: the id first (as the real service's clients send it), then the file's body with the tag. */
function bodyToWrite(desired: DesiredInput, tag: string, kind: ComparedKind): Dashboard {
  const { id: _fileId, metadata: _serverOwned, ...body } = kind.withOwnership(desired.body, tag);
  return { id: desired.id, ...body };
}

/**
 * The owned live dashboards no desired dashboard claims, each once (ids compared case-blind, as the service does):
 * `delete` when pruning, else `orphan`. The daemon's chunked pass, which never holds the whole folder, uses it too.
 */
export function findOrphans(
  desired: readonly { id: string }[],
  liveOwned: BuildPlanInput['liveOwned'],
  action: 'delete' | 'orphan',
): Extract<PlanChange, { action: 'delete' | 'orphan' }>[] {
  const claimed = new Set(desired.map((d) => d.id.toLowerCase()));
  const orphans = new Map<string, Extract<PlanChange, { action: 'delete' | 'orphan' }>>();
  for (const live of liveOwned) {
    const key = live.id.toLowerCase();
    if (claimed.has(key) || orphans.has(key)) continue;
    orphans.set(key, { action, id: live.id, name: live.name, ...(live.owner !== undefined ? { owner: live.owner } : {}) });
  }
  return [...orphans.values()];
}

function compareChanges(a: PlanChange, b: PlanChange): number {
  return (
    ACTION_ORDER.indexOf(a.action) - ACTION_ORDER.indexOf(b.action) ||
    compareCodeUnits(fileOf(a), fileOf(b)) ||
    compareCodeUnits(a.id, b.id)
  );
}

function fileOf(change: PlanChange): string {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: changes without a file are compared only with each other (the action sorts first), where any one value, even undefined, is as good
  return change.action === 'orphan' || change.action === 'delete' ? '' : change.file;
}

function summarize(changes: readonly PlanChange[]): PlanSummary {
  const summary: PlanSummary = { create: 0, adopt: 0, update: 0, delete: 0, unchanged: 0, orphan: 0 };
  for (const change of changes) summary[change.action]++;
  return summary;
}
