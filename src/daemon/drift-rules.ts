import type { ApplyOutcome } from '../apply/apply-plan.js';
import type { Plan, PlanChange } from '../plan/build-plan.js';
import { ownCopy } from './pass-values.js';
import type { FileResult } from './status-schema.js';

/**
 * The rules of a reconcile pass, apart from its reads and writes: given the plan, what the loop remembers from its
 * earlier passes and what the writes came to, what the pass writes, reports and remembers next. Pure: memory in,
 * decisions and the next memory out, but for the synced files, which `recordSynced` adds to the loop's map in place
 * (reconcile-pass.ts does the I/O, logging and status around them).
 *
 * Drift is a difference between the live dashboard and a file that has not changed since the loop last saw the two
 * equal (same content hash): someone edited the live side. A difference after the file changed (or before the loop
 * ever synced it) is a git change and is always written; drift is reverted only with self-heal.
 */
export interface PassMemory {
  /**
   * Dashboard id → content hash of the file when live was last known equal to it. The loop's own map, which each pass
   * adds to in place (`recordSynced`): a copy per pass made every saved file cost a map of all the folder's dashboards
   * (~80 KB promoted per save at 1,000 of them, the bulk of what sent the daemon into a full collection every few
   * seconds of edits).
   */
  readonly synced: Map<string, string>;
  /** Orphans already announced as left behind: each gets one line, not one per resync. */
  readonly leftBehind: ReadonlySet<string>;
  /** Why the last full pass's prune was refused: a refusal is announced only when its reason is new. */
  readonly lastRefusal: string | undefined;
  /** File → its warnings as last logged: a file's warnings are logged when they change, not at every resync. */
  readonly warned: Map<string, string>;
}

/** A new loop's memory: its own `synced` and `warned` maps. */
export const freshMemory = (): PassMemory => ({ synced: new Map(), leftBehind: new Set(), lastRefusal: undefined, warned: new Map() });

export type FileChange = Exclude<PlanChange, { action: 'orphan' | 'delete' }>;

export type Orphan = Extract<PlanChange, { action: 'orphan' | 'delete' }>;

/** A difference found on a file unchanged since live last matched it; a `create` is a dashboard deleted on the target. */
export type Drift = Extract<PlanChange, { action: 'create' | 'update' }>;

/** What a pass writes: the plan, less its drift unless self-healing, and the drift it found. */
export function decideWrites(plan: Plan, hashes: ReadonlyMap<string, string>, memory: PassMemory, selfHeal: boolean): { plan: Plan; drift: Drift[] } {
  const drift = plan.changes.filter((change): change is Drift => {
    if (change.action !== 'create' && change.action !== 'update') return false;
    const hash = hashes.get(change.id);
    return hash !== undefined && memory.synced.get(change.id) === hash;
  });
  if (selfHeal || drift.length === 0) return { plan, drift };
  const drifted = new Set(drift.map((change) => change.id));
  return { plan: { ...plan, changes: plan.changes.filter((c) => !drifted.has(c.id) || c.action === 'orphan') }, drift };
}

/** A full pass's prune refusal: counted every time it happens, announced only when its reason is new. */
export function noteRefusal(refused: string | undefined, memory: PassMemory): { count: boolean; announce: boolean; memory: PassMemory } {
  const refusedNow = refused !== undefined;
  return { count: refusedNow, announce: refusedNow && refused !== memory.lastRefusal, memory: { ...memory, lastRefusal: refused } };
}

/** One file's part of a pass: its result (undefined: the write was never attempted) and whether its change is still pending. */
export interface FileSettled {
  change: FileChange;
  /** Its own copy of the change's id (pass-values.ts ownCopy), kept beyond the pass. */
  id: string;
  result: FileResult | undefined;
  error?: string;
  /** The change is still to be made (drift reported, a write never attempted): the console shows it as pending. */
  pending: boolean;
}

export interface WriteResults {
  outcomes: readonly ApplyOutcome[];
  /** Dashboard id → the target's validator's message, for the files it refused (never written). */
  rejected: ReadonlyMap<string, string>;
  /** The ids `decideWrites` found drifted. */
  drifted: ReadonlySet<string>;
  /** Dashboard id → its file's content hash. */
  hashes: ReadonlyMap<string, string>;
}

/**
 * Per file of the plan (drift left alone included), what it came to; and the files live is now known equal to
 * (written, or unchanged), at their content hashes, for `recordSynced`.
 */
export function settleFiles(plan: Plan, results: WriteResults, selfHeal: boolean): { files: FileSettled[]; synced: Map<string, string> } {
  const byId = new Map(results.outcomes.filter((o) => o.action !== 'delete').map((o) => [o.id, o]));
  const synced = new Map<string, string>();
  const files: FileSettled[] = [];
  for (const change of plan.changes) {
    if (change.action === 'orphan' || change.action === 'delete') continue;
    const outcome = byId.get(change.id);
    const rejection = results.rejected.get(change.id);
    const result = rejection !== undefined ? 'rejected' : fileResult(change, outcome, results.drifted.has(change.id), selfHeal);
    const error = rejection ?? (outcome?.status === 'failed' ? outcome.error : undefined);
    const id = ownCopy(change.id);
    files.push({ change, id, result, ...(error !== undefined ? { error } : {}), pending: result === undefined || result === 'drift-reported' });
    const hash = results.hashes.get(id);
    if (hash !== undefined && (outcome?.status === 'applied' || change.action === 'unchanged')) synced.set(id, hash);
  }
  return { files, synced };
}

/** Adds a pass's newly synced files to the loop's memory, in place (see PassMemory.synced). */
export function recordSynced(memory: PassMemory, synced: ReadonlyMap<string, string>): void {
  for (const [id, hash] of synced) memory.synced.set(id, hash);
}

/** `undefined`: the write was never attempted (nothing to record). */
export function fileResult(change: FileChange, outcome: ApplyOutcome | undefined, drift: boolean, selfHeal: boolean): FileResult | undefined {
  if (change.action === 'unchanged') return 'unchanged';
  if (drift && !selfHeal) return 'drift-reported';
  if (outcome === undefined) return undefined;
  if (outcome.status === 'failed') return 'failed';
  if (drift) return 'drift-reverted';
  return change.action === 'create' ? 'created' : change.action === 'adopt' ? 'adopted' : 'updated';
}

/** A full pass knows every file: the sync state of dashboards no file holds any more is forgotten. */
export function forgetMissing(memory: PassMemory, ids: Iterable<string>): PassMemory {
  const present = new Set(ids);
  return { ...memory, synced: new Map([...memory.synced].filter(([id]) => present.has(id))) };
}

/**
 * The orphans a full pass without invalid files found: a kept one (pruning off) not announced before is to be
 * announced now, once; one that is no orphan any more is forgotten, so it is announced again if it ever is.
 */
export function settleOrphans(orphans: readonly Orphan[], memory: PassMemory): { announce: Orphan[]; memory: PassMemory } {
  const announced = new Set(memory.leftBehind);
  const announce: Orphan[] = [];
  for (const orphan of orphans) {
    if (orphan.action !== 'orphan' || announced.has(orphan.id)) continue;
    announced.add(orphan.id);
    announce.push(orphan);
  }
  const still = new Set(orphans.map((o) => o.id));
  return { announce, memory: { ...memory, leftBehind: new Set([...announced].filter((id) => still.has(id))) } };
}
