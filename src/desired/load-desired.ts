import { shownPath } from '../lib/shown-path.js';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { Dashboard } from '../schema/dashboard.js';
import { parseDashboardId, type DashboardId } from '../schema/ids.js';
import { checkSources, defaultWorkerCount } from './check-pool.js';
import type { DesiredCache } from './desired-cache.js';
import { deriveDashboardId } from './derive-id.js';
import { deriveDocumentId } from './document-id.js';
import type { DocumentFileBody } from '../schema/document-content.js';
import { isCode } from '../lib/fs-errors.js';
import { DASHBOARD_FILE, discoverFiles, missingFolderDiagnostic } from './discover-files.js';
import { sourceLocator } from './locate-problems.js';
import { ProblemBudget } from './problem-budget.js';
import { duplicateIdDiagnostics, type DuplicateId } from './duplicate-ids.js';
import type { Diagnostic } from './diagnostic.js';
import type { PackedCheck } from './packed-check.js';
import { isJsonFile, jsonCheckKey, notJsonProblem } from './json-file-check.js';
import { readSources, type SourceFile } from './read-sources.js';
import { pushAll } from '../lib/push-all.js';

export { deriveDashboardId } from './derive-id.js';
export { createDesiredCache, type DesiredCache } from './desired-cache.js';

/**
 * One valid file of the folder, of either kind: a classic dashboard (no `kind`) or a platform dashboard or notebook
 * (`kind: 'document'`, whose body is the file form: `document:` without its id, beside the content).
 */
export type DesiredDashboard = DesiredClassic | DesiredDocument;

export interface DesiredClassic extends DesiredCommon {
  kind?: undefined;
  id: DashboardId;
  /**
   * The file's own object, keys in file order, without `id` and `metadata`. From loadDesired it is decoded from the
   * JSON text the loader holds (packed-check.ts) on every read, a fresh copy each time: read it once per use.
   */
  readonly body: Dashboard;
}

export interface DesiredDocument extends DesiredCommon {
  kind: 'document';
  /** `document.id`, else derived from the path (document-id.ts): letters, digits and dashes. */
  id: string;
  /** The file form (`document:` without `id`, then the content), decoded on every read as a classic body is. */
  readonly body: DocumentFileBody;
}

interface DesiredCommon {
  idSource: 'file' | 'derived';
  /** Relative to `cwd`, `/` separators. */
  file: string;
  /** `body` as JSON text: what apply sends, and how the plan recognises an unchanged dashboard without decoding it. */
  bodyJson: string;
  name: string;
  /** SHA-256 (hex) of the file's bytes. */
  contentHash: string;
}

export interface DesiredResult {
  dashboards: DesiredDashboard[];
  diagnostics: Diagnostic[];
  /** Unknown keys: not errors unless the caller is strict (see `strictly`). Their files' dashboards are included. */
  warnings: Diagnostic[];
  /** How many dashboard files were read. */
  files: number;
}

export interface LoadDesiredOptions {
  dir: string;
  cwd?: string;
  /** Only these files (relative to `cwd`, or absolute): the daemon's incremental reload. Deleted ones are skipped. */
  only?: string[];
  /**
   * Worker threads besides the calling thread, which parses too. Default: one thread per 50 files up to the core
   * count, counting the calling thread (so 1 worker on 2 cores). 0 parses on the calling thread only.
   */
  workers?: number;
  /** Reuse checks of unchanged files across loads (the daemon). */
  cache?: DesiredCache;
  /**
   * Each file's outcome as soon as it is checked, before the rest of the folder is: its dashboard as the result
   * will list it unless an earlier file claims the same id, or undefined for a file that is invalid or unreadable;
   * `warned` when it has unknown keys. Lets a caller overlap its own work with the checks (reconcile/early-plans.ts).
   */
  onFileChecked?: (outcome: { dashboard: DesiredDashboard | undefined; warned: boolean }) => void;
}

/**
 * Reads the dashboards folder into validated dashboards plus every problem found, in one pass over all files
 * (a user's mistakes are data, never an exception). Only real I/O failures on the folder itself throw.
 */
export async function loadDesired(options: LoadDesiredOptions): Promise<DesiredResult> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir);
  const shown = (name: string): string => shownPath(cwd, resolve(dir, name));
  const names = options.only ? await selectOnly(dir, cwd, options.only) : await listAll(dir);
  if (names === undefined) return { dashboards: [], diagnostics: [missingFolderDiagnostic(shown('.'))], warnings: [], files: 0 };
  const files = readSources(dir, names, options.cache?.files).filter((f) => f.kind !== 'gone');
  // Each valid file's dashboard is made once, as its check lands: for onFileChecked, and for the result.
  const made = new Array<DesiredDashboard | undefined>(files.length);
  const checks = await checkAll(files, options, (i, check) => {
    const outcome = outcomeOf(files[i] as SourceFile, shown((files[i] as SourceFile).name), check);
    made[i] = outcome.dashboard;
    options.onFileChecked?.(outcome);
  });
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const valid: ValidFile[] = [];
  files.forEach((file, i) => {
    const check = checks[i];
    if (file.kind === 'unreadable') {
      diagnostics.push({ file: shown(file.name), line: 0, col: 0, path: '', message: `cannot read the file (${file.reason})` });
    } else if (file.kind === 'read' && check !== undefined) {
      // `dashcd:` without environments is an error of its own (below), not also an unknown key.
      const ownWarnings = check.ok && check.hasEnvironmentOverrides ? (check.warnings ?? []).filter((w) => w.path !== 'dashcd') : (check.warnings ?? []);
      pushAll(warnings, ownWarnings.map((p) => ({ file: shown(file.name), ...p })));
      if (check.ok && check.hasEnvironmentOverrides) diagnostics.push({ file: shown(file.name), ...environmentsOnly(file.source) });
      else if (check.ok) {
        valid.push({
          dashboard: made[i] as DesiredDashboard,
          get source() {
            return file.source;
          },
        });
      }
      else pushAll(diagnostics, check.problems.map((p) => ({ file: shown(file.name), ...p })));
    }
  });
  const { dashboards, duplicates } = assignIds(valid);
  const order = files.map((f) => shown(f.name));
  pushAll(diagnostics, await duplicateIdDiagnostics(duplicates, cwd));
  return { dashboards, diagnostics: sortDiagnostics(diagnostics, order), warnings: sortDiagnostics(warnings, order), files: files.length };
}

/**
 * `dashcd:` (environment limits and overrides, src/environments/) means nothing without environments, and must never
 * reach the API as a dashboard member.
 */
function environmentsOnly(source: string): Omit<Diagnostic, 'file'> {
  const { line, col } = sourceLocator(source).at(['dashcd']);
  return { line, col, path: 'dashcd', message: 'environment limits and overrides need environments, declared in dashcd.yaml' };
}

async function listAll(dir: string): Promise<string[] | undefined> {
  const found = await discoverFiles(dir);
  return found.missing ? undefined : found.files;
}

/** `only` entries inside the folder that name dashboard files, as paths relative to it; undefined: no folder. */
async function selectOnly(dir: string, cwd: string, only: readonly string[]): Promise<string[] | undefined> {
  try {
    if (!(await stat(dir)).isDirectory()) return undefined;
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return undefined;
    throw error;
  }
  const names = only
    .map((entry) => shownPath(dir, resolve(cwd, entry)))
    .filter((name) => name !== '' && name !== '..' && !name.startsWith('../') && !isAbsolute(name))
    .filter((name) => DASHBOARD_FILE.test(name) && !name.split('/').some((part) => part.startsWith('.')));
  return [...new Set(names)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

type ReadFile = SourceFile & { kind: 'read' };

/** What onFileChecked is told about one file: the dashboard it will most likely give, if it is valid. */
function outcomeOf(file: SourceFile, shownName: string, check: PackedCheck | undefined): { dashboard: DesiredDashboard | undefined; warned: boolean } {
  const warned = (check?.warnings?.length ?? 0) > 0;
  if (file.kind !== 'read' || check === undefined || !check.ok || check.hasEnvironmentOverrides) return { dashboard: undefined, warned };
  return { dashboard: desiredDashboard({ name: file.name, file: shownName, contentHash: file.contentHash, check }), warned };
}

/**
 * Checks files, asking the cache first and filling it as checks land; misses go through the worker pool. `onChecked`
 * hears of every file (by its index) as its check is known, unreadable ones and cache hits at once. What the checks
 * hold of problems is bounded for the whole folder (problem-budget.ts).
 */
async function checkAll(
  files: readonly SourceFile[],
  options: LoadDesiredOptions,
  onChecked: (index: number, check: PackedCheck | undefined) => void,
): Promise<(PackedCheck | undefined)[]> {
  const { cache } = options;
  const keyOf = (f: ReadFile): string => (isJsonFile(f.name) ? jsonCheckKey(f.contentHash) : f.contentHash);
  const budget = new ProblemBudget();
  const hit = (f: SourceFile): PackedCheck | undefined => {
    const cached = f.kind === 'read' ? cache?.get(keyOf(f)) : undefined;
    return cached && budget.keep(cached);
  };
  const checks: (PackedCheck | undefined)[] = files.map(hit);
  // A .json file JSON does not read is refused here, not checked as the YAML it also is.
  files.forEach((f, i) => {
    const notJson = f.kind === 'read' && checks[i] === undefined && isJsonFile(f.name) ? notJsonProblem(f.source) : undefined;
    if (notJson) checks[i] = budget.keep(notJson);
  });
  const misses = files.flatMap((f, i) => (f.kind === 'read' && checks[i] === undefined ? [i] : []));
  files.forEach((file, i) => {
    if (file.kind !== 'read' || checks[i] !== undefined) onChecked(i, checks[i]);
  });
  const sources = { length: misses.length, text: (k: number) => (files[misses[k] as number] as ReadFile).source };
  const fresh = await checkSources(sources, options.workers ?? defaultWorkerCount(sources.length), {
    // The cache takes a check only whole, so what it holds of problems is within the budget too: a check the budget
    // shortened is made again by the next load (a folder of over MAX_LOAD_PROBLEMS problems is checked each time).
    keep: (k, check) => {
      const kept = budget.keep(check);
      if (kept === check) cache?.set(keyOf(files[misses[k] as number] as ReadFile), check);
      return kept;
    },
    onChecked: (k, check) => onChecked(misses[k] as number, check),
  });
  misses.forEach((fileIndex, k) => {
    checks[fileIndex] = fresh[k] as PackedCheck;
  });
  return checks.map((check) => check && budget.final(check));
}

interface ValidFile {
  dashboard: DesiredDashboard;
  /** Decoded from the file's bytes on each read (read-sources.ts): only a repeated id needs it. */
  readonly source: string;
}

/** A valid file's dashboard, its id from the file or derived from its path (`name`, relative to the folder). */
function desiredDashboard(file: { name: string; file: string; contentHash: string; check: PackedCheck & { ok: true } }): DesiredDashboard {
  const { check } = file;
  const { fileId, name, kind } = check;
  // A document's own id is already checked to be one the Document service takes; a classic one is a UUID.
  const fromFile = kind === 'document' ? fileId : fileId === undefined ? undefined : parseDashboardId(fileId);
  const derive = kind === 'document' ? deriveDocumentId : deriveDashboardId;
  const item = {
    ...(kind === 'document' ? { kind } : {}),
    id: fromFile ?? derive(file.name),
    idSource: fromFile === undefined ? 'derived' : 'file',
    file: file.file,
    get body(): unknown {
      return JSON.parse(check.bodyJson);
    },
    // Read from the check each time: a cached one decodes it on each read (check-cache-format.ts), and a plan reads
    // it once or twice per dashboard, as its live counterpart arrives.
    get bodyJson(): string {
      return check.bodyJson;
    },
    name,
    contentHash: file.contentHash,
  };
  // The check's kind decided the body's form and the id's (DesiredDashboard's variants).
  return item as DesiredDashboard;
}

/** Ids from the file or derived from its path; a later file repeating an earlier file's id is a diagnostic. */
function assignIds(valid: readonly ValidFile[]): { dashboards: DesiredDashboard[]; duplicates: DuplicateId[] } {
  const dashboards: DesiredDashboard[] = [];
  const duplicates: DuplicateId[] = [];
  // Classic dashboards and documents are apart on the target: the same id in both is no clash.
  const byId = new Map<string, ValidFile>();
  const keyOf = (d: DesiredDashboard): string => `${d.kind ?? 'dashboard'}:${d.id}`;
  const claim = ({ dashboard, source }: ValidFile) => ({ file: dashboard.file, source, idSource: dashboard.idSource, kind: dashboard.kind });
  for (const file of valid) {
    const first = byId.get(keyOf(file.dashboard));
    if (first !== undefined) {
      duplicates.push({ id: file.dashboard.id, first: claim(first), later: claim(file) });
      continue;
    }
    byId.set(keyOf(file.dashboard), file);
    dashboards.push(file.dashboard);
  }
  return { dashboards, duplicates };
}

function sortDiagnostics(diagnostics: Diagnostic[], fileOrder: readonly string[]): Diagnostic[] {
  const rank = new Map(fileOrder.map((file, i) => [file, i]));
  return diagnostics.sort((a, b) => (rank.get(a.file) ?? 0) - (rank.get(b.file) ?? 0) || a.line - b.line || a.col - b.col);
}
