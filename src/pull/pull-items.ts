import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { MAX_SOURCE_BYTES } from '../schema/limits.js';
import { tooLargeForAFile } from './pulled-document.js';
import type { ApiClient } from '../client/api-client.js';
import { loadDesired, type DesiredDashboard } from '../desired/load-desired.js';
import { mapConcurrent } from '../lib/concurrency.js';
import { writeFileDurable } from '../lib/durable-file.js';
import { shownPath } from '../lib/shown-path.js';
import { planDashboard, type ComparedKind, type DesiredInput, type LiveItem, type PlanChange } from '../plan/build-plan.js';
import { freeFileName } from './file-name.js';
import { PLAIN_STRINGS, TEMPLATE_STRINGS, type FileStrings } from './template-literals.js';

export type PullOutcome =
  /** `adopted`: with `adopt`, the live item was not owned and now carries the ownership mark. */
  | { id: string; file: string; status: 'written' | 'up-to-date'; adopted?: true }
  | { id: string; file: string; status: 'kept-local-edits' }
  /** The file differs and uses values (templates, a `dashcd:` member): overwriting it would lose `uses`. */
  | { id: string; file: string; status: 'kept-templates'; uses: string[] }
  | { id: string; status: 'not-found' }
  /** The live item exists but no file can hold it as it is (`reason` says why and what to do). */
  | { id: string; status: 'refused'; reason: string };

/** What every pull takes, whichever kind it pulls. */
export interface PullCommonOptions {
  api: ApiClient;
  /** Where new files are written. */
  dir: string;
  /**
   * The dashboards folder `dir` belongs to (default `dir`): an item already claimed by a file anywhere in it is
   * refreshed in that file, never copied into `dir` (two files with one id would make plan refuse the folder).
   */
  root?: string;
  cwd: string;
  ids: readonly string[];
  force: boolean;
  ownershipTag: string;
  ignore: readonly string[];
  /**
   * Pulling from one environment of dashcd.yaml: the items its files give there (ids as that environment resolves
   * them, values applied), and per file what its templates use. Without it the files are read as they are; with it
   * they are templates, so a live `${{` is written as its literal form (template-literals.ts).
   */
  environment?: { dashboards: readonly DesiredDashboard[]; uses: ReadonlyMap<string, readonly string[]> };
  /**
   * Also mark each pulled item as owned, as apply adopts (the file's content plus the ownership mark), so the next
   * plan shows it unchanged instead of `adopt`. Only items whose file now means the live item: one kept for its
   * local edits or values is left to plan and apply.
   */
  adopt?: boolean;
  /** Parallel GETs (default 8); files are written one at a time, in `ids` order. */
  concurrency?: number;
  signal?: AbortSignal;
}

/** A live item read for pulling: as a file means it (the ownership mark taken off) and as its file's text. */
export interface PulledItem {
  /** As the target holds it, mark included: what adopting compares with. */
  live: LiveItem;
  /** The id as the target spells it. */
  id: string;
  name: string;
  /** What the file will mean: compared (by `compared.comparedForm`) with an existing file's body. */
  value: unknown;
  /** The file pull writes: its strings as `written` (PullSource.read) gives them; made when first asked for. */
  fileText: () => string;
}

/**
 * Refuses an item the target answered under another id than the one asked for: the id names the file's item from
 * then on (and a target's word is not trusted to be an id at all).
 */
export function answeredAnotherId(asked: string, answered: string): { refused: string } | undefined {
  // Case-blind, as plans match ids: a dashboard asked for by an upper-case UUID is answered under its lower-case one.
  if (answered.toLowerCase() === asked.toLowerCase()) return undefined;
  return { refused: `the target answered ${JSON.stringify(answered.slice(0, 100))} when asked for this id: not written` };
}

/** One kind's side of a pull: how its items are read and written, and which files of the folder are its own. */
export interface PullSource {
  kind: 'document' | undefined;
  /** The kind's compared form and ownership mark (kinds/). */
  compared: ComparedKind;
  /** Undefined: no such item; `refused`: one no file can hold. `written`: how the file writes the live strings. */
  read(id: string, written: FileStrings['written']): Promise<PulledItem | { refused: string } | undefined>;
  /** Writes an `adopt` change of the plan, as apply would. */
  adopt(change: Extract<PlanChange, { action: 'adopt' }>): Promise<void>;
}

/**
 * Writes live items as YAML files. An item already in the dashboards root goes to its own file, which is replaced
 * only with `force`: when it means the same as the live version it is left as it is (its comments and layout are
 * the user's), and when it differs it has local edits. A new item gets a fresh file name, never one that exists.
 */
export async function pullItems(options: PullCommonOptions, source: PullSource): Promise<PullOutcome[]> {
  const dir = resolve(options.cwd, options.dir);
  // Ids derive from paths relative to the root, as plan derives them.
  const existing = options.environment?.dashboards ?? (await loadDesired({ dir: resolve(options.cwd, options.root ?? dir), cwd: options.cwd })).dashboards;
  // Ids are matched case-blind, as plans match them.
  const fileById = new Map(existing.filter((d) => d.kind === source.kind).map((d) => [d.id.toLowerCase(), d]));
  const strings = options.environment ? TEMPLATE_STRINGS : PLAIN_STRINGS;
  const reads = await mapConcurrent(options.ids, options.concurrency ?? 8, (id) => source.read(id, strings.written), options.signal);
  const taken = new Set<string>();
  const outcomes: PullOutcome[] = [];
  for (const [index, id] of options.ids.entries()) {
    const read = reads[index];
    if (!read || 'refused' in read) {
      outcomes.push(read ? { id, status: 'refused', reason: read.refused } : { id, status: 'not-found' });
      continue;
    }
    const local = fileById.get(id.toLowerCase());
    const outcome = local ? await refreshFile(local, read, source, options) : await writeNewFile(dir, read, taken, options);
    if (!options.adopt || (outcome.status !== 'written' && outcome.status !== 'up-to-date')) {
      outcomes.push(outcome);
      continue;
    }
    // What the file now means: the pulled one's text read as a file reads (literal `${{` forms are not what live
    // holds) when written, else the file's own (it means the same).
    const body: unknown = local === undefined || outcome.status === 'written' ? strings.meant(parse(read.fileText())) : local.body;
    outcomes.push(await adoptPulled(outcome, body, read, source, options));
  }
  return outcomes;
}

/**
 * Writes what apply would write to adopt the item (planDashboard's `adopt`: the file's body plus the mark), so
 * ownership is recorded where apply records it, on the live item.
 */
async function adoptPulled(
  outcome: Extract<PullOutcome, { status: 'written' | 'up-to-date' }>,
  body: unknown,
  read: PulledItem,
  source: PullSource,
  options: PullCommonOptions,
): Promise<PullOutcome> {
  const desired = { ...(source.kind ? { kind: source.kind } : {}), id: outcome.id, file: outcome.file, name: read.name, body } as DesiredInput;
  const change = planDashboard(desired, read.live, { ownershipTag: options.ownershipTag, ignore: options.ignore, kind: source.compared });
  if (change.action !== 'adopt') return outcome;
  await source.adopt(change);
  return { ...outcome, adopted: true };
}

async function refreshFile(local: DesiredDashboard, read: PulledItem, source: PullSource, options: PullCommonOptions): Promise<PullOutcome> {
  const { id, file } = local;
  const path = resolve(options.cwd, file);
  const same = isDeepStrictEqual(source.compared.comparedForm(local.body, options.ignore), source.compared.comparedForm(read.value, options.ignore));
  const uses = options.environment?.uses.get(file) ?? [];
  // A file meaning the same as live is left alone even with --force, which replaces local edits: rewriting it would
  // only lose its comments, its layout and, in a template, its values.
  if (same) return { id, file, status: 'up-to-date' };
  if (uses.length > 0 && !options.force) return { id, file, status: 'kept-templates', uses: [...uses] };
  if (!options.force) return { id, file, status: 'kept-local-edits' };
  const text = writableText(read);
  if (typeof text !== 'string') return text;
  await writeFileDurable(path, text);
  return { id, file, status: 'written' };
}

/** The item's file text, or its refusal when dashcd could not read that file back (past MAX_SOURCE_BYTES). */
function writableText(read: PulledItem): string | Extract<PullOutcome, { status: 'refused' }> {
  const text = read.fileText();
  const bytes = Buffer.byteLength(text);
  return bytes > MAX_SOURCE_BYTES ? { id: read.id, status: 'refused', reason: tooLargeForAFile(bytes, 'as YAML it is') } : text;
}

/** A file dashcd could not read back (every later validate and plan refused it) is not written. */
async function writeNewFile(dir: string, read: PulledItem, taken: Set<string>, options: PullCommonOptions): Promise<PullOutcome> {
  const text = writableText(read);
  if (typeof text !== 'string') return text;
  const path = await freeFileName(dir, read, taken);
  taken.add(path);
  await writeFileDurable(path, text);
  return { id: read.id, file: shownPath(options.cwd, path), status: 'written' };
}
