import type { ApiClient } from '../client/api-client.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { planDashboard, rulesFor, type CompareRules, type DesiredInput, type OwnedStub, type PlanChange } from '../plan/build-plan.js';
import { isWrittenText } from '../plan/written-text.js';
import { kindOf, listOwned } from '../kinds/kinds.js';
import { isOwnerRefusal } from '../client/errors.js';
import { isUuid } from '../schema/documents.js';

export interface PlannedAgainstLive {
  /** One change per desired file the target let the plan read, in the desired order. */
  changes: PlanChange[];
  /**
   * Files the plan cannot write, each with why: the target refused to show this caller the item, its owner's alone
   * (another user's private document), or a new document would need an id only the service makes. The file's
   * problem, not the token's, so the others are planned (the daemon skips it; a plan is invalid, exit 3).
   */
  refused: { file: string; message: string }[];
  /** Every live item carrying the ownership mark, of every kind the target has: the prune candidates. */
  owned: OwnedStub[];
}

/** Changes read and compared ahead of the plan (early-plans.ts): one for the same file, id and body, else undefined. */
export interface EarlyChanges {
  take(dashboard: DesiredInput): Promise<PlanChange | undefined> | undefined;
}

/**
 * Reads the live side and compares each desired file as its GET returns (bounded concurrency), plus the owned
 * lists; a file `early` already read and compared (early-plans.ts) is not read again. A live item is dropped once
 * compared, so a plan holds `concurrency` of them at a time instead of every one beside the desired state.
 * Documents are listed only where the target has a Document service; a file of one where it has none fails the
 * plan as an unusable target (platform-documents.ts).
 */
export async function planAgainstLive(
  desired: readonly DesiredInput[],
  deps: { api: ApiClient; rules: CompareRules; concurrency: number; signal?: AbortSignal; withOwned: boolean; early?: EarlyChanges },
): Promise<PlannedAgainstLive> {
  const { api, rules, concurrency, signal, early } = deps;
  const refused: PlannedAgainstLive['refused'] = [];
  const plan = async (d: DesiredInput): Promise<PlanChange | undefined> => {
    try {
      return (await early?.take(d)) ?? (await readAndPlan(d, { api, rules, ...(signal ? { signal } : {}) }));
    } catch (error) {
      if (error instanceof NotWritable) {
        refused.push({ file: d.file, message: `${error.message}: this token can read it but not change it. Give the file another document.id, or have the owner share it with write access` });
        return undefined;
      }
      if (!isOwnerRefusal(error)) throw error;
      refused.push({ file: d.file, message: `${sentence(error.envelope?.error.message ?? error.message)} This token can neither read nor change it: give the file another document.id` });
      return undefined;
    }
  };
  const [planned, owned] = await Promise.all([mapConcurrent(desired, concurrency, plan, signal), deps.withOwned ? listOwned(api, rules.ownershipTag) : Promise.resolve([])]);
  // An aborted run leaves dashboards never read: a plan from it would call them new.
  signal?.throwIfAborted();
  const changes: PlanChange[] = [];
  for (const change of await withTrashHolders(planned.filter((c): c is PlanChange => c !== undefined), api)) {
    // The service makes UUID ids itself and refuses one in a create (400 at apply, after a green plan): a file may
    // name an existing document by its UUID (one made in the app), never create one. One its trash holds is restored.
    if (change.action === 'create' && change.kind === 'document' && change.heldInTrash === undefined && isUuid(change.id)) refused.push({ file: change.file, message: UUID_CREATE });
    else changes.push(change);
  }
  return { changes, owned, refused };
}

const UUID_CREATE = 'no document has this id, and the service makes UUID ids itself: a new document cannot have one. Leave document.id out (one is derived from the file\'s path) or write letters, digits and dashes';

/**
 * Document creates whose id a document in the trash holds (typically pruned, then its file put back), marked so: one
 * listing of the trash, only when the plan creates a document. A trash the token may not read marks none (apply
 * still explains its 409).
 */
async function withTrashHolders(changes: PlanChange[], api: ApiClient): Promise<PlanChange[]> {
  if (api.documents === undefined || !changes.some((c) => c.action === 'create' && c.kind === 'document')) return changes;
  const trashed = await api.documents.trash.list().catch(() => []);
  if (trashed.length === 0) return changes;
  const holders = new Map(trashed.map((d) => [d.id, { name: d.name, deletedTime: d.deletionInfo.deletedTime, deletedBy: d.deletionInfo.deletedBy }]));
  return changes.map((change) => {
    const holder = change.action === 'create' && change.kind === 'document' ? holders.get(change.id) : undefined;
    // Its own properties as they are (a written body's may be getters, computed when first read), plus the holder.
    return holder === undefined ? change : (Object.defineProperties({ heldInTrash: holder }, Object.getOwnPropertyDescriptors(change)) as PlanChange);
  });
}

/** One desired file against its live item, read now; a classic one settled on the live text when apply wrote it. */
export async function readAndPlan(desired: DesiredInput, deps: { api: ApiClient; rules: CompareRules; signal?: AbortSignal }): Promise<PlanChange> {
  const { api, rules, signal } = deps;
  const itemRules = rulesFor(desired, rules);
  const live = await kindOf(desired).live(api).getText(desired.id, signal ? { signal } : {});
  // Read once: a cached dashboard's body text is decoded on each read (desired/check-cache-format.ts).
  const { bodyJson } = desired;
  if (desired.kind === undefined && live !== undefined && bodyJson !== undefined && isWrittenText(live.text, bodyJson, rules.ownershipTag)) {
    return { action: 'unchanged', id: desired.id, name: desired.name, file: desired.file };
  }
  const change = planDashboard(desired, live?.parse() as Parameters<typeof planDashboard>[1], itemRules);
  if (live?.notWritable !== undefined && (change.action === 'update' || change.action === 'adopt')) throw new NotWritable(live.notWritable);
  return change;
}

/** The target's words as a sentence of the message: ended with a period, whatever it ended with. */
function sentence(text: string): string {
  return `${text.replace(/[\s.]+$/, '')}.`;
}

/** A plan would write an item its caller may only read (LiveItemText's `notWritable`): the file's problem. */
class NotWritable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotWritable';
  }
}

/**
 * A write the target refused because the item changed since the plan (apply's `replan`): the file's item read and
 * planned again against what is there now.
 */
export function replanWrite(change: Extract<PlanChange, { action: 'create' | 'adopt' | 'update' }>, deps: { api: ApiClient; rules: CompareRules }): Promise<PlanChange> {
  const { id, file, name } = change;
  const desired: DesiredInput = change.kind === 'document' ? { id, file, name, kind: 'document', body: change.desired } : { id, file, name, body: change.desired };
  return readAndPlan(desired, deps);
}
