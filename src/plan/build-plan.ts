import type { Operation } from 'fast-json-patch';
import type { GitInfo } from '../desired/git-info.js';
import type { Dashboard, LiveDashboard } from '../schema/dashboard.js';
import { DOCUMENT_KEY, type DocumentFileBody, type LiveDocumentBody } from '../schema/document-content.js';
import { diffJson, jsonEqual } from './diff.js';
import { compareCodeUnits, isJsonObject, type JsonValue } from './json-value.js';
import { keepIgnored } from './keep-ignored.js';
import { pruneRefusal, type PruneLimit } from './prune-guard.js';

/**
 * The part of the loader's `DesiredDashboard` (desired/load-desired.ts) the plan reads. Declared structurally so
 * the plan depends on the shape, not on the loader module.
 */
export type DesiredInput = DesiredInputCommon & ({ kind?: undefined; readonly body: Dashboard } | { kind: 'document'; readonly body: DocumentFileBody });

interface DesiredInputCommon {
  id: string;
  file: string;
  name: string;
  /**
   * `body` as JSON text (without `id` and `metadata`), when the caller holds it: a live dashboard whose text is what
   * apply wrote from it is then unchanged without parsing either (plan/written-text.ts).
   */
  bodyJson?: string;
}

/**
 * What a write sends, by kind: a classic dashboard (no `kind`), or a platform document (its file form), which the
 * Document service writes only at the version the plan read (`expectedVersion`, absent for a create): a document
 * edited in between is refused (409), never overwritten.
 */
export type WrittenBody =
  | { kind?: undefined; desired: Dashboard; /** `desired` as JSON text, when the kind made it from the file's text: what apply sends. */ json?: string }
  | {
      kind: 'document';
      desired: DocumentFileBody;
      expectedVersion?: number;
      /** The plan changes only the `document:` block (an adopt's mark, a rename): the live content's bytes stay. */
      metadataOnly?: true;
    };

/** Which kind an item without a body is: absent for classic dashboards. */
type KindMark = { kind?: 'document' };

/** A live item as the plan compares it: a classic dashboard, or a document in its file form. */
export type LiveItem = LiveDashboard | LiveDocumentBody;

interface PatchedWrite {
  id: string;
  name: string;
  file: string;
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
/**
 * A document in the trash that holds a create's id: the service refuses the create (409) until it is restored or
 * purged, so the plan says so before apply meets it.
 */
export interface TrashHolder {
  name: string;
  deletedTime: string;
  deletedBy: string;
}

export type PlanChange =
  | ({ action: 'create'; id: string; name: string; file: string; heldInTrash?: TrashHolder } & WrittenBody)
  | ({ action: 'adopt' } & PatchedWrite & WrittenBody)
  | ({ action: 'update' } & PatchedWrite & WrittenBody)
  | ({ action: 'delete'; id: string; name: string; owner?: string } & KindMark)
  | ({ action: 'unchanged'; id: string; name: string; file: string } & KindMark)
  | ({ action: 'orphan'; id: string; name: string; owner?: string } & KindMark);

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
  live: ReadonlyMap<string, LiveItem>;
  /** Live items carrying the ownership mark: the orphan candidates (documents marked `kind: 'document'`). */
  liveOwned: readonly OwnedStub[];
  ownershipTag: string;
  ignore: readonly string[];
  kind: ComparedKind;
  documents?: CompareRules | undefined;
  target: string;
  git?: GitInfo;
  /** `partial`: only some files are being reconciled (the daemon), so absence from `desired` says nothing. */
  scope?: 'full' | 'partial';
  /** Delete owned orphans, at most `maxDelete` of them (more, or none left in the folder, refuses: prune-guard.ts). */
  prune?: PruneLimit;
}

export const ACTION_ORDER: readonly PlanAction[] = ['create', 'adopt', 'update', 'delete', 'unchanged', 'orphan'];

/** An owned live item as a listing shows it. */
export interface OwnedStub {
  id: string;
  name: string;
  owner?: string;
  kind?: 'document';
}

/**
 * What a plan asks of the kind its items are (kinds/kind.ts): the compared form, the ownership mark, the body a write
 * sends and the version it must name. Declared structurally so plan/ never imports kinds/ and never knows which kind
 * it compares.
 */
export interface ComparedKind {
  comparedForm(value: unknown, ignore: readonly string[]): JsonValue;
  isOwned(live: LiveItem, mark: string): boolean;
  /** What apply sends for a desired file: its body with the ownership mark (and, for classic dashboards, its id). */
  written(desired: DesiredInput, mark: string): WrittenBody;
  /** Equal apart from what the compared form drops anyway: unchanged without computing either form (speed only). */
  sameContent(live: LiveItem, written: WrittenBody): boolean;
  /** The version a write of this item must name, for kinds written under optimistic locking. */
  versionOf?(live: LiveItem): number | undefined;
}

/** The rules every dashboard of one plan is compared under; `documents`: the rules its documents are compared under. */
export interface CompareRules {
  ownershipTag: string;
  ignore: readonly string[];
  kind: ComparedKind;
  documents?: CompareRules | undefined;
}

/** Pure and synchronous: desired + live in, a serialisable plan out. */
export function buildPlan(input: BuildPlanInput): Plan {
  return assemblePlan(input, input.desired.map((d) => planDashboard(d, input.live.get(liveKey(d)), rulesFor(d, input))));
}

/** Where `live` holds a desired item: documents apart from classic dashboards (`document:<id>`). */
export function liveKey(item: { id: string; kind?: 'document' | undefined }): string {
  return item.kind === 'document' ? `document:${item.id}` : item.id;
}

/** The rules an item is compared under: its kind's. */
export function rulesFor(item: { kind?: 'document' | undefined }, rules: CompareRules): CompareRules {
  if (item.kind !== 'document') return rules;
  if (rules.documents === undefined) throw new Error('a plan of documents needs the rules documents are compared under');
  return rules.documents;
}

/**
 * The plan from one change per desired file (planDashboard's, in any order), adding the orphans. Callers that
 * compare as each live dashboard arrives (reconcile/plan-against-live.ts) use it so they never hold all of them.
 */
export function assemblePlan(input: Omit<BuildPlanInput, 'live' | 'kind' | 'documents'>, desiredChanges: readonly PlanChange[]): Plan {
  const changes = [...desiredChanges];
  const scope = input.scope ?? 'full';
  // Only a full scope prunes: absence from a partial one says nothing.
  const limit = scope === 'full' ? input.prune : undefined;
  const pruning = limit !== undefined;
  const orphans = scope === 'full' ? findOrphans(input.desired, input.liveOwned, pruning ? 'delete' : 'orphan') : [];
  changes.push(...orphans);
  changes.sort(compareChanges);
  const refused = limit ? pruneRefusal({ desiredCount: input.desired.length, orphanCount: orphans.length, ...limit }) : undefined;
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

/** One desired file against its live item (undefined: none with its id), under its kind's rules (rulesFor). */
export function planDashboard(desired: DesiredInput, live: LiveItem | undefined, rules: CompareRules): PlanChange {
  const { id, name, file } = desired;
  const { ownershipTag: tag, ignore, kind } = rules;
  const written = kind.written(desired, tag);
  const mark = desired.kind === 'document' ? { kind: desired.kind } : {};
  // The written body's members as the kind made them: a `desired` made on demand (from its text) stays unread.
  if (!live) return Object.defineProperties({ action: 'create', id, name, file }, Object.getOwnPropertyDescriptors(written)) as PlanChange;
  const locked = withVersion(keptFromLive(desired, written, live, rules), kind.versionOf?.(live));
  // A live item without the mark was made elsewhere (or pulled): writing it is a takeover the reviewer must see,
  // even when the content is equal, since from then on prune may delete it. Its patch includes the mark.
  if (!kind.isOwned(live, tag)) {
    const diff = diffJson(kind.comparedForm(live, ignore), kind.comparedForm(written.desired, ignore));
    return { action: 'adopt', id, name, file, ...withMetadataOnly(locked, diff.patch), ...diff };
  }
  // Stryker disable next-line ConditionalExpression: speed only; the normalised diff of the same content is empty too
  if (kind.sameContent(live, written)) return { action: 'unchanged', id, name, file, ...mark };
  const { patch, before } = diffJson(kind.comparedForm(live, ignore), kind.comparedForm(written.desired, ignore));
  if (patch.length === 0) return { action: 'unchanged', id, name, file, ...mark };
  return { action: 'update', id, name, file, ...withMetadataOnly(locked, patch), patch, before };
}

/**
 * The written body with what ignore rules match taken from the live item (keep-ignored.ts), the ownership mark added
 * after, so a rule over where the mark lives (`/dashboardMetadata/tags`, `/document/description`) cannot drop it (an
 * adopt that never landed, planned again at every run); as it is without rules.
 */
function keptFromLive(desired: DesiredInput, written: WrittenBody, live: LiveItem, rules: CompareRules): WrittenBody {
  if (rules.ignore.length === 0) return written;
  const kept = keepIgnored(desired.body, live, rules.ignore);
  if (kept === desired.body) return written;
  const body = desired.kind === 'document' ? withLayoutsOfItsTiles(kept as DocumentFileBody) : kept;
  // The file's JSON text is what a classic write sends: it is the file's, so it goes.
  const input = (desired.kind === 'document' ? { id: desired.id, file: desired.file, name: desired.name, kind: 'document', body } : { id: desired.id, file: desired.file, name: desired.name, body }) as DesiredInput;
  return rules.kind.written(input, rules.ownershipTag);
}

/** A platform dashboard's layouts keyed by its tiles: a layout kept from live for a tile the file removed goes. */
function withLayoutsOfItsTiles(body: DocumentFileBody): DocumentFileBody {
  const { tiles, layouts } = body as Record<string, unknown>;
  if (!isJsonObject(tiles) || !isJsonObject(layouts) || Object.keys(layouts).every((key) => Object.hasOwn(tiles, key))) return body;
  return { ...body, layouts: Object.fromEntries(Object.entries(layouts).filter(([key]) => Object.hasOwn(tiles, key))) } as DocumentFileBody;
}


/**
 * A document whose patch touches only its `document:` block is written without its content: the service keeps the
 * content as the bytes it was sent, and an adopt rewrote them from the file (a 17 kB content re-serialised to 12 kB,
 * a 20-digit number rounded) though the plan showed only the mark added to the description.
 */
function withMetadataOnly(written: WrittenBody, patch: readonly { path: string }[]): WrittenBody {
  const block = `/${DOCUMENT_KEY}`;
  if (written.kind !== 'document' || !patch.every((op) => op.path === block || op.path.startsWith(`${block}/`))) return written;
  return { ...written, metadataOnly: true as const };
}

function withVersion(written: WrittenBody, version: number | undefined): WrittenBody {
  return written.kind === 'document' && version !== undefined ? { ...written, expectedVersion: version } : written;
}

/**
 * Equal data apart from the members the compared form drops anyway (`id`, `metadata`) has equal compared forms,
 * since a kind's comparedForm depends on the value only: so a live dashboard that is exactly what apply wrote (the
 * embedded server, or any target that adds nothing) is unchanged without computing either side's. Classic only.
 */
// Stryker disable next-line BlockStatement: speed only (see planDashboard); answering nothing sends every dashboard to the diff
export function sameDashboardContent(live: LiveItem, written: WrittenBody): boolean {
  const { id: _liveId, metadata: _liveMetadata, ...liveContent } = live as LiveDashboard;
  const { id: _writtenId, metadata: _writtenMetadata, ...writtenContent } = written.desired as Dashboard;
  return jsonEqual(liveContent, writtenContent);
}

/**
 * The owned live dashboards no desired dashboard claims, each once (a dashboard's UUID in any case, a document's id exactly):
 * `delete` when pruning, else `orphan`. The daemon's chunked pass, which never holds the whole folder, uses it too.
 */
export function findOrphans(
  desired: readonly { id: string; kind?: 'document' | undefined }[],
  liveOwned: BuildPlanInput['liveOwned'],
  action: 'delete' | 'orphan',
): Extract<PlanChange, { action: 'delete' | 'orphan' }>[] {
  // Classic dashboards and documents are apart: a document never claims a dashboard of the same id. A dashboard's
  // UUID is the same in any case; a document's id is not (the real service keeps `Team-A` and `team-a` apart).
  const keyOf = (item: { id: string; kind?: 'document' | undefined }): string => (item.kind === 'document' ? liveKey(item) : liveKey(item).toLowerCase());
  const claimed = new Set(desired.map(keyOf));
  const orphans = new Map<string, Extract<PlanChange, { action: 'delete' | 'orphan' }>>();
  for (const live of liveOwned) {
    const key = keyOf(live);
    if (claimed.has(key) || orphans.has(key)) continue;
    orphans.set(key, { action, id: live.id, name: live.name, ...(live.owner !== undefined ? { owner: live.owner } : {}), ...(live.kind ? { kind: live.kind } : {}) });
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
