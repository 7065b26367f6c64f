import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { bodySizeMessage } from '../desired/body-size.js';
import { idProblem, schemaErrorMap } from '../desired/dashboard-rules.js';
import { issueMessage, unknownKeyMessage } from '../desired/hints.js';
import { findUnknownKeys } from '../desired/unknown-keys.js';
import { problemsBeyondTileType } from '../desired/unknown-type-tiles.js';
import { detectFileKind, isDocumentShaped } from '../desired/detect-kind.js';
import { checkDocumentFile } from '../desired/document-check.js';
import { deriveDocumentId } from '../desired/document-id.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { packDocumentCheck, type PackedCheck } from '../desired/packed-check.js';
import { Dashboard } from '../schema/dashboard.js';
import type { DocumentFileBody } from '../schema/document-content.js';
import { DOCUMENT_CONTENT_MAX_BYTES, isDocumentId } from '../schema/documents.js';
import { BODY_LIMIT_BYTES } from '../schema/limits.js';
import { parseDashboardId, type DashboardId } from '../schema/ids.js';
import { applyOverrides, type Layered } from './apply-overrides.js';
import type { AnyDashcdBlock } from './dashcd-block.js';
import { getPath, type PlainObject } from './deep-merge.js';
import type { Environment } from './environment.js';
import type { FileProblem } from './locate-diagnostics.js';
import { ENVIRONMENT_INSERTED_MAX, renderTemplates, type RenderContext, type RenderResult } from './render-templates.js';
import { pushAll } from '../lib/push-all.js';
import type { Steps } from '../lib/in-turns.js';
import { moreProblems } from '../desired/capped-problems.js';
import { FileOrderBudget } from '../desired/problem-budget.js';
import { quoted } from '../lib/quoted.js';

type Path = (string | number)[];

/** A dashboard file parsed but not yet validated: its values are still templates. */
export interface TemplateFile {
  /** Relative to cwd, `/` separators: what diagnostics and plans show. */
  file: string;
  /** Relative to the dashboards folder: derived ids and `dashboard("…")` paths use it. */
  name: string;
  source: string;
  value: PlainObject;
  /** The parsed `dashcd:` member (its kind's, as the file's); files whose member is invalid never get here. */
  block?: AnyDashcdBlock;
  /**
   * The file only reads once its mistakes are corrected (an unquoted flow template, reported where it is loaded):
   * its id and templates count for other files, but it is a dashboard of no environment.
   */
  referenceOnly?: true;
}

export interface EnvironmentDesired {
  environment: Environment;
  /** The dashboards this environment gets, values applied, each valid. */
  dashboards: DesiredDashboard[];
  /** Problems in this environment only; each names it. */
  diagnostics: Diagnostic[];
  /** Unknown keys in the dashboards as this environment gets them (errors under --strict); each names it. */
  warnings: Diagnostic[];
}

export interface ResolveDeps {
  deriveId(name: string): DashboardId;
  locate(file: TemplateFile, problem: FileProblem, env: Environment): Diagnostic;
  /** Files there are but that do not parse, by name: a reference to one says so rather than "no dashboard file". */
  unread?: ReadonlySet<string>;
}

interface Entry {
  file: TemplateFile;
  /** A platform dashboard or notebook (detect-kind.ts): its id, checks and body are a document's. */
  document: boolean;
  layered: Layered;
  /** A UUID for a classic dashboard, letters, digits and dashes for a document. */
  id: string;
  idSource: 'file' | 'derived';
}

/**
 * One environment's desired state: overrides, then ids (a `dashboard("…")` reference needs them all), then the rest,
 * a step per file (lib/in-turns.ts).
 */
export function* resolveEnvironment(files: readonly TemplateFile[], env: Environment, deps: ResolveDeps): Steps<EnvironmentDesired> {
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const fail = (file: TemplateFile, problem: FileProblem): void => void diagnostics.push(deps.locate(file, problem, env));
  const entries = withIds(files, env, deps, fail);
  const byName = new Map(entries.map((e) => [e.file.name, e]));
  const known = new Set(files.map((f) => f.name));
  const dashboards: DesiredDashboard[] = [];
  const seen = new Map<string, Entry>();
  const budget = { left: ENVIRONMENT_INSERTED_MAX };
  const listing = new FileOrderBudget();
  const summary = (more: number, why: string | undefined): FileProblem => ({ path: [], message: moreProblems(more, why) });
  for (const entry of entries) {
    // Classic dashboards and documents are apart on the target: the same id in both is no clash.
    const key = `${entry.document ? 'document' : 'dashboard'}:${entry.id}`;
    const first = seen.get(key);
    if (first !== undefined) {
      fail(entry.file, { path: entry.layered.originOf(idPath(entry.document)), message: `duplicate ${entry.document ? 'document' : 'dashboard'} id ${entry.id}: ${first.file.file} has the same id; every ${entry.document ? 'document' : 'dashboard'} needs its own id` });
      continue;
    }
    seen.set(key, entry);
    if (entry.file.referenceOnly) continue;
    const ctx: RenderContext = { env, values: env.values, dashboardId: (ref) => referenceId(ref, entry.file.name, { byName, known, unread: deps.unread, env: env.name }), maxInserted: entry.document ? DOCUMENT_CONTENT_MAX_BYTES : BODY_LIMIT_BYTES, environmentBudget: budget };
    const rendered = renderTemplates(entry.layered.value, ctx);
    const failedTemplates = renderProblems(entry, rendered);
    const problems = [...entry.layered.problems, ...failedTemplates];
    if (entry.layered.problems.length === 0) {
      // Checked beside a template that failed too (a mistyped value hid every other problem of its file, a CI run
      // each), except where that template's string is, whose check would only repeat it; never planned then.
      const made = entry.document ? validatedDocument(entry, rendered) : validated(entry, rendered);
      pushAll(problems, made.problems.filter((problem) => !failedTemplates.some((failed) => isWithin(problem.path, failed.path))));
      if (made.dashboard && failedTemplates.length === 0) dashboards.push(made.dashboard);
      // Also beside schema errors: a wrong tileType must not hide a misspelt key of the same tile.
      pushAll(warnings, listing.list(made.warnings, summary).map((w) => deps.locate(entry.file, w, env)));
    }
    listing.list(problems, summary).forEach((p) => fail(entry.file, p));
    yield;
  }
  return { environment: env, dashboards, diagnostics, warnings };
}

/**
 * The files deployed in `env` with their ids there: the file's `id` (a document's `document.id`) after overrides and
 * values, else derived from its path.
 */
function withIds(files: readonly TemplateFile[], env: Environment, deps: ResolveDeps, fail: (f: TemplateFile, p: FileProblem) => void): Entry[] {
  const noReferences: RenderContext = { env, values: env.values, dashboardId: () => ({ problem: 'an id cannot refer to another dashboard' }), maxInserted: BODY_LIMIT_BYTES };
  return files.flatMap((file) => {
    const layered = applyOverrides(file.value, file.block, env);
    if (layered === undefined) return [];
    const document = isDocumentShaped(file.value);
    const rendered = renderTemplates(getPath(layered.value, idPath(document)), noReferences);
    const raw = rendered.value;
    const badId = rendered.problems[0]?.message ?? (document ? documentIdProblem(raw) : classicIdProblem(raw));
    if (badId !== undefined) {
      fail(file, { path: layered.originOf(idPath(document)), message: badId });
      return [];
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: only narrows the type: any other raw (absent, null, '') parses to no id either
    const written = typeof raw === 'string' && raw !== '' ? raw : undefined;
    const fromFile = written === undefined || document ? written : parseDashboardId(written);
    const id = fromFile ?? (document ? deriveDocumentId(file.name) : deps.deriveId(file.name));
    return [{ file, document, layered, id, idSource: fromFile === undefined ? 'derived' : 'file' } satisfies Entry];
  });
}

function idPath(document: boolean): Path {
  return document ? ['document', 'id'] : ['id'];
}

function classicIdProblem(raw: unknown): string | undefined {
  return raw === undefined || raw === null || typeof raw === 'string' ? idProblem(raw) : `the id must be a string, got ${quoted(raw)}`;
}

/** As the document file schema has it: absent, or an id the Document service takes (a UUID included). */
function documentIdProblem(raw: unknown): string | undefined {
  if (raw === undefined || (typeof raw === 'string' && isDocumentId(raw))) return undefined;
  return `${quoted(raw)} is not a document id: use 1 to 100 letters, digits and dashes, or remove document.id to derive one from the file path`;
}

/** `dashboard("../platform/hosts.yaml")`: relative to the referring file, or to the dashboards folder with a leading `/`. */
function referenceId(
  ref: string,
  from: string,
  scope: { byName: ReadonlyMap<string, Entry>; known: ReadonlySet<string>; unread: ReadonlySet<string> | undefined; env: string },
): { id: string } | { problem: string } {
  const name = posix.normalize(ref.startsWith('/') ? ref.slice(1) : posix.join(posix.dirname(from), ref));
  const entry = scope.byName.get(name);
  if (entry !== undefined) return { id: entry.id };
  const where = scope.known.has(name)
    ? `${name} is not deployed in ${scope.env} (its dashcd.environments leaves ${scope.env} out)`
    : scope.unread?.has(name)
      ? `${name} could not be read (its own problem is reported), so its id is not known`
      : `no dashboard file ${name} in the dashboards folder`;
  return { problem: `dashboard(${quoted(ref)}): ${where}` };
}

function renderProblems(entry: Entry, rendered: RenderResult): FileProblem[] {
  return rendered.problems.map((p) => ({ path: entry.layered.originOf(p.path), message: p.message, template: p.template, ...(p.valuePath ? { valuePath: p.valuePath } : {}), ...(p.missingValue ? { missingValue: p.missingValue } : {}) }));
}

interface Validated {
  dashboard?: DesiredDashboard;
  problems: FileProblem[];
  /** Unknown keys, at their place in the file (an override's member in `dashcd:`). */
  warnings: FileProblem[];
}

/** The schema check of the dashboard as this environment gets it; a problem under a value's output names the value. */
function validated(entry: Entry, rendered: RenderResult): Validated {
  const { id: _id, metadata: _serverOwned, ...body } = rendered.value as PlainObject;
  const warnings = findUnknownKeys(rendered.value).map((unknown) => ({ path: entry.layered.originOf([...unknown.parent, unknown.key] as Path), message: unknownKeyMessage(unknown) }));
  const parsed = Dashboard.safeParse(body, { error: schemaErrorMap });
  // The hint the single-target check gives (a misspelt tileType's did-you-mean), not zod's list of every value.
  if (!parsed.success) {
    const issues = [...parsed.error.issues, ...problemsBeyondTileType(body, parsed.error.issues)];
    return { problems: issues.map((issue) => located(entry, rendered, issue.path as Path, issueMessage(issue, body))), warnings };
  }
  // Values can make one environment's rendering too large where the file itself is not.
  const tooLarge = bodySizeMessage(body);
  if (tooLarge !== undefined) return { problems: [{ path: [], message: tooLarge }], warnings };
  const bodyJson = JSON.stringify(body);
  const name = (body.dashboardMetadata as { name: string }).name;
  return { dashboard: { id: entry.id as DashboardId, idSource: entry.idSource, file: entry.file.file, body: body as Dashboard, bodyJson, name, contentHash: hashOf(bodyJson) }, problems: [], warnings };
}

/**
 * A platform dashboard's or notebook's checks on the value this environment gets (desired/document-check.ts), and
 * its body in the form the single-target loader gives (packed-check.ts): `document:` without its id, the content.
 */
function validatedDocument(entry: Entry, rendered: RenderResult): Validated {
  const value = rendered.value as PlainObject;
  const kind = detectFileKind(value);
  if (kind.kind === 'unknown') return { problems: [{ path: entry.layered.originOf(kind.path), message: kind.reason }], warnings: [] };
  // Only an override can make it classic-shaped again (`document: null`): the document checks then say what is missing.
  const checked = checkDocumentFile(value, kind.kind === 'notebook' ? 'notebook' : 'dashboard');
  const warnings = checked.warnings.map((w) => ({ path: entry.layered.originOf(w.path), message: w.message }));
  if (checked.problems.length > 0) return { problems: checked.problems.map((p) => located(entry, rendered, p.path, p.message)), warnings };
  // A valid document file always packs to a valid check.
  const { bodyJson, name } = packDocumentCheck(value, []) as PackedCheck & { ok: true };
  const dashboard = { kind: 'document' as const, id: entry.id, idSource: entry.idSource, file: entry.file.file, body: JSON.parse(bodyJson) as DocumentFileBody, bodyJson, name, contentHash: hashOf(bodyJson) };
  return { dashboard, problems: [], warnings };
}

/** A problem on the rendered value, at its place in the file, naming the value whose output holds it. */
function located(entry: Entry, rendered: RenderResult, path: Path, message: string): FileProblem {
  const valuePath = valueAt(rendered.fromValues, path);
  return { path: entry.layered.originOf(path), message, ...(valuePath ? { valuePath } : {}) };
}

function hashOf(bodyJson: string): string {
  return createHash('sha256').update(bodyJson).digest('hex');
}

/**
 * The value whose output holds `path` (the path itself, or an object value inserted at an ancestor). Not the root:
 * a dashboard file is a mapping, never a template's output.
 */
function valueAt(fromValues: ReadonlyMap<string, string[]>, path: readonly (string | number)[]): string[] | undefined {
  for (let depth = path.length; depth >= 1; depth--) {
    const found = fromValues.get(JSON.stringify(path.slice(0, depth)));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Whether `path` is `ancestor` or lies below it. */
function isWithin(path: readonly (string | number)[], ancestor: readonly (string | number)[]): boolean {
  return ancestor.length <= path.length && ancestor.every((segment, i) => segment === path[i]);
}
