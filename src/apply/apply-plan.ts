import type { ApiClient } from '../client/api-client.js';
import { IdInTrashError } from '../client/documents-api.js';
import { ApiError, isAuthError } from '../client/errors.js';
import { mapConcurrent } from '../lib/concurrency.js';
import type { Logger } from '../lib/logger.js';
import type { Plan, PlanChange } from '../plan/build-plan.js';
import type { ConstraintViolation } from '../schema/error-envelope.js';
import { errorMessage } from '../lib/error-message.js';

type WriteChange = Extract<PlanChange, { action: 'create' | 'adopt' | 'update' }>;
type DeleteChange = Extract<PlanChange, { action: 'delete' }>;

/**
 * What each write and delete did, as the target answered it, not as the plan expected: another apply may have
 * created, changed or deleted the dashboard in between. An applied write's `action` is `create` when the target
 * answered 201 (it created the dashboard) and otherwise the plan's own, `update` for a planned create (the
 * dashboard was there by then). A delete the target answered 404 is `alreadyGone`: the dashboard is deleted, but not
 * by this run.
 */
export type ApplyOutcome =
  | { action: WriteChange['action']; id: string; name: string; file: string; status: 'applied'; kind?: 'document' }
  | { action: WriteChange['action']; id: string; name: string; file: string; status: 'failed'; error: string; kind?: 'document'; replanned?: PlanChange }
  | { action: 'delete'; id: string; name: string; status: 'deleted'; alreadyGone?: true; kind?: 'document' }
  | { action: 'delete'; id: string; name: string; status: 'failed'; error: string; kind?: 'document' };

export interface RemoteViolation {
  id: string;
  file: string;
  message: string;
  violations: ConstraintViolation[];
}

export type ApplyResult =
  | { kind: 'rejected'; invalid: RemoteViolation[] }
  | {
      kind: 'applied';
      outcomes: ApplyOutcome[];
      unchanged: number;
      skippedInvalid: RemoteViolation[];
      /** Changes never started because the run was asked to stop (its signal); 0 when it ran to the end. */
      notStarted: number;
    };

/**
 * What apply needs of a kind (kinds/kind.ts's `live`): where its items are written and deleted on a target. Declared
 * structurally so apply depends on the shape, not on kinds/.
 */
export interface WritableKind {
  live(api: ApiClient): {
    put(id: string, body: string, expectedVersion?: number, metadataOnly?: boolean): Promise<'created' | 'updated'>;
    remove(id: string): Promise<boolean>;
  };
}

export interface ApplyDeps {
  api: ApiClient;
  /** The kind of each of the plan's items (kinds/kinds.ts's kindOf): writes and deletes go through its `live(api)`. */
  kinds(item: { kind?: 'document' | undefined }): WritableKind;
  /**
   * A write the target refused because the item changed since the plan read it (409, documents): the item read and
   * planned again, to report what is there now. Nothing is written for it: a change nobody reviewed is never overwritten.
   */
  replan?(change: WriteChange): Promise<PlanChange>;
  log: Logger;
  concurrency: number;
  signal?: AbortSignal;
  /**
   * `all-or-nothing` (apply): one dashboard the target rejects means nothing is written.
   * `skip-invalid` (daemon): rejected dashboards keep their live version, the others are written.
   */
  validation?: 'all-or-nothing' | 'skip-invalid';
}

export function writesOf(plan: Plan): WriteChange[] {
  return plan.changes.filter((c): c is WriteChange => c.action === 'create' || c.action === 'adopt' || c.action === 'update');
}

/** The plan's deletions; none when its prune guards refused (the caller stops before applying such a plan). */
export function deletesOf(plan: Plan): DeleteChange[] {
  if (plan.prune.refused !== undefined) return [];
  return plan.changes.filter((c): c is DeleteChange => c.action === 'delete');
}

/**
 * Asks the target's validator about every dashboard the plan would write. Local schema checks already passed;
 * this catches what only the target knows, before anything is written (all or nothing).
 */
export async function validateRemotely(
  plan: Plan,
  { api, concurrency, signal }: ApplyDeps,
  bodyOf: (change: WriteChange) => unknown = (change) => change.desired,
): Promise<RemoteViolation[]> {
  // Only classic dashboards have a validator; documents are checked by their schemas, and the service on write.
  const writes = writesOf(plan).filter((change) => change.kind === undefined);
  const results = await mapConcurrent(
    writes,
    concurrency,
    async (change): Promise<RemoteViolation | undefined> => {
      const outcome = await api.dashboards.validate(bodyOf(change), change.id);
      if (outcome.valid) return undefined;
      return { id: change.id, file: change.file, message: outcome.message, violations: outcome.violations };
    },
    signal,
  );
  return results.filter((r): r is RemoteViolation => r !== undefined);
}

/**
 * Validate-first, then write only create/adopt/update items with bounded concurrency (the client retries transient
 * failures); a dashboard that still fails is reported and the others are applied. Then the plan's `delete` items
 * (there are none unless pruning was on when it was built). One log line per write.
 */
export async function applyPlan(plan: Plan, deps: ApplyDeps): Promise<ApplyResult> {
  // The validator and the PUT get the same bytes: the kind's own text of the body when it made one (a classic
  // dashboard's, from its file), else each 20 KB body encoded once instead of twice.
  const encoded = new Map<WriteChange, string>();
  const bodyOf = (change: WriteChange): string => {
    let text = encoded.get(change);
    if (text === undefined) encoded.set(change, (text = ('json' in change ? change.json : undefined) ?? JSON.stringify(change.desired)));
    return text;
  };
  const invalid = await validateRemotely(plan, deps, bodyOf);
  const skipInvalid = deps.validation === 'skip-invalid';
  if (invalid.length > 0 && !skipInvalid) return { kind: 'rejected', invalid };
  const rejected = new Set(invalid.map((v) => v.id));
  const { concurrency } = deps;
  // A rejected token fails every write the same way: stop starting new ones and let the caller report it once.
  const stop = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal;
  const guarded = <T>(work: () => Promise<T>): Promise<T> =>
    work().catch((error: unknown) => {
      if (isAuthError(error)) stop.abort(error);
      throw error;
    });
  const toWrite = writesOf(plan).filter((change) => !rejected.has(change.id));
  const writes = await mapConcurrent(toWrite, concurrency, (change) => guarded(() => writeOne(change, bodyOf(change), deps)), signal);
  const deletes = await mapConcurrent(deletesOf(plan), concurrency, (orphan) => guarded(() => deleteOne(orphan, deps)), signal);
  const started = [...writes, ...deletes];
  const outcomes = started.filter((o): o is ApplyOutcome => o !== undefined);
  return { kind: 'applied', outcomes, unchanged: plan.summary.unchanged, skippedInvalid: invalid, notStarted: started.length - outcomes.length };
}

async function writeOne(change: WriteChange, body: string, deps: ApplyDeps): Promise<ApplyOutcome> {
  const { action, id, name, file } = change;
  const { log } = deps;
  const expectedVersion = change.kind === 'document' ? change.expectedVersion : undefined;
  const metadataOnly = change.kind === 'document' && change.metadataOnly === true;
  const mark = change.kind === 'document' ? { kind: change.kind } : {};
  try {
    const done = doneAction(action, await deps.kinds(change).live(deps.api).put(id, body, expectedVersion, metadataOnly));
    log.info({ id, file, action: done }, WRITTEN[done]);
    return { action: done, id, name, file, status: 'applied', ...mark };
  } catch (error) {
    if (isAuthError(error)) throw error;
    if (error instanceof IdInTrashError) return heldInTrash(change, error, deps);
    if (error instanceof ApiError && error.status === 409 && change.kind === 'document') return conflicted(change, error, deps);
    const message = errorMessage(error);
    log.error({ id, file, action, err: message }, 'dashboard write failed');
    return { action, id, name, file, status: 'failed', error: message, ...mark };
  }
}

/**
 * A document changed on the target since the plan read it (someone edited it in the app, or created one with its
 * id): not written. Planned again as it is now, so the run reports what a new plan would do instead of a bare 409.
 */
async function conflicted(change: WriteChange & { kind: 'document' }, refusal: ApiError, deps: ApplyDeps): Promise<ApplyOutcome> {
  const replanned = deps.replan ? await deps.replan(change).catch(() => undefined) : undefined;
  // Refused as taken, yet still nowhere to read: no race a new plan would settle, but an id held out of sight.
  if (change.action === 'create' && replanned?.action === 'create') return heldUnseen(change, refusal, deps);
  const { action, id, name, file } = change;
  const now = replanned === undefined ? '' : `; planned again: ${replanned.action}${'patch' in replanned ? ` (${replanned.patch.length} change${replanned.patch.length === 1 ? '' : 's'})` : ''}`;
  const error = `changed on the target since it was planned (409): not overwritten${now}`;
  deps.log.error({ id, file, action, err: error }, 'document changed since the plan');
  return { action, id, name, file, status: 'failed', error, kind: 'document', ...(replanned ? { replanned } : {}) };
}

/**
 * A create refused because a document in the trash holds its id (typically pruned, then its file put back): every
 * apply would be refused the same way until the trashed one is restored (it keeps its mark, so the next apply brings
 * it up to the file) or the file takes another id. Not a race: no re-plan, no "review and apply again".
 */
function heldInTrash(change: WriteChange, error: IdInTrashError, deps: ApplyDeps): ApplyOutcome {
  const { name, deletionInfo } = error.trashed;
  return heldFailure(
    change,
    `its id is held by a document in the trash (${name}, deleted ${deletionInfo.deletedTime} by ${deletionInfo.deletedBy}), so the service refuses a new one (409): dashcd trash restore ${change.id} brings it back and the next apply updates it to this file; or give the file another document.id`,
    deps,
  );
}

/**
 * A create refused as taken whose id no read can find: a document dashcd's identity cannot see holds it, most likely
 * in another identity's trash (whoever deleted it in the app), or in its own when the token may not read the trash.
 */
function heldUnseen(change: WriteChange, refusal: ApiError, deps: ApplyDeps): ApplyOutcome {
  // The embedded server refuses an id apart from a taken one only by letter case, and says so: its words, not a guess.
  const said = refusal.envelope?.error.message ?? '';
  if (LETTER_CASE.test(said)) return heldFailure(change, `its id is refused (409): ${said} Give the file another document.id`, deps);
  return heldFailure(
    change,
    "its id is taken by a document dashcd cannot read (409), most likely one in the trash of whoever deleted it (dashcd trash list shows this identity's, with document:trash.documents:read): restore it from that trash, or give the file another document.id",
    deps,
  );
}

const LETTER_CASE = /\bletter case\b/i;

function heldFailure(change: WriteChange, error: string, deps: ApplyDeps): ApplyOutcome {
  const { action, id, name, file } = change;
  deps.log.error({ id, file, action, err: error }, 'document id taken');
  return { action, id, name, file, status: 'failed', error, kind: 'document' };
}

const WRITTEN: Record<WriteChange['action'], string> = { create: 'dashboard created', adopt: 'dashboard adopted', update: 'dashboard updated' };

/** The write as the target's answer tells it (see ApplyOutcome). */
export function doneAction(planned: WriteChange['action'], answer: 'created' | 'updated'): WriteChange['action'] {
  if (answer === 'created') return 'create';
  return planned === 'create' ? 'update' : planned;
}

async function deleteOne(orphan: DeleteChange, deps: ApplyDeps): Promise<ApplyOutcome> {
  const { id, name } = orphan;
  const { log } = deps;
  // Documents go to the trash (restorable): the outcome says which kind, so reports can say where it went.
  const mark = orphan.kind === 'document' ? { kind: orphan.kind } : {};
  try {
    // A document's delete is a move to its owner's trash: the log says so, as apply's own line does.
    const [gone, done] = orphan.kind === 'document' ? ['orphan document already gone', 'orphan document moved to the trash'] : ['orphan dashboard already gone', 'orphan dashboard deleted'];
    if (!(await deps.kinds(orphan).live(deps.api).remove(id))) {
      log.info({ id, name, action: 'delete' }, gone);
      return { action: 'delete', id, name, status: 'deleted', alreadyGone: true, ...mark };
    }
    log.info({ id, name, action: 'delete' }, done);
    return { action: 'delete', id, name, status: 'deleted', ...mark };
  } catch (error) {
    if (isAuthError(error)) throw error;
    const message = errorMessage(error);
    log.error({ id, name, err: message }, 'orphan delete failed');
    return { action: 'delete', id, name, status: 'failed', error: message, ...mark };
  }
}

/** What the target did; a delete of a dashboard already gone counts nowhere (nothing was changed). */
export function countOutcomes(outcomes: readonly ApplyOutcome[]): { created: number; adopted: number; updated: number; deleted: number; failed: number } {
  const counts = { created: 0, adopted: 0, updated: 0, deleted: 0, failed: 0 };
  const key = { create: 'created', adopt: 'adopted', update: 'updated', delete: 'deleted' } as const;
  for (const outcome of outcomes) if (!('alreadyGone' in outcome)) counts[outcome.status === 'failed' ? 'failed' : key[outcome.action]]++;
  return counts;
}
