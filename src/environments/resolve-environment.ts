import { createHash } from 'node:crypto';
import { posix } from 'node:path';
import { bodySizeMessage } from '../desired/body-size.js';
import { idProblem, schemaErrorMap } from '../desired/dashboard-rules.js';
import { unknownKeyMessage } from '../desired/hints.js';
import { findUnknownKeys } from '../desired/unknown-keys.js';
import type { DesiredDashboard } from '../desired/load-desired.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { Dashboard } from '../schema/dashboard.js';
import { parseDashboardId, type DashboardId } from '../schema/ids.js';
import { applyOverrides, type Layered } from './apply-overrides.js';
import type { DashcdBlock } from './dashcd-block.js';
import type { PlainObject } from './deep-merge.js';
import type { Environment } from './environment.js';
import type { FileProblem } from './locate-diagnostics.js';
import { renderTemplates, type RenderContext, type RenderResult } from './render-templates.js';

/** A dashboard file parsed but not yet validated: its values are still templates. */
export interface TemplateFile {
  /** Relative to cwd, `/` separators: what diagnostics and plans show. */
  file: string;
  /** Relative to the dashboards folder: derived ids and `dashboard("…")` paths use it. */
  name: string;
  source: string;
  value: PlainObject;
  /** The parsed `dashcd:` member; files whose member is invalid never get here. */
  block?: DashcdBlock;
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
}

interface Entry {
  file: TemplateFile;
  layered: Layered;
  id: DashboardId;
  idSource: 'file' | 'derived';
}

/** One environment's desired state: overrides, then ids (a `dashboard("…")` reference needs them all), then the rest. */
export function resolveEnvironment(files: readonly TemplateFile[], env: Environment, deps: ResolveDeps): EnvironmentDesired {
  const diagnostics: Diagnostic[] = [];
  const warnings: Diagnostic[] = [];
  const fail = (file: TemplateFile, problem: FileProblem): void => void diagnostics.push(deps.locate(file, problem, env));
  const entries = withIds(files, env, deps, fail);
  const byName = new Map(entries.map((e) => [e.file.name, e]));
  const known = new Set(files.map((f) => f.name));
  const dashboards: DesiredDashboard[] = [];
  const seen = new Map<string, Entry>();
  for (const entry of entries) {
    const first = seen.get(entry.id);
    if (first !== undefined) {
      fail(entry.file, { path: entry.layered.originOf(['id']), message: `duplicate dashboard id ${entry.id} in ${env.name}: ${first.file.file} has the same id; every dashboard needs its own id` });
      continue;
    }
    seen.set(entry.id, entry);
    if (entry.file.referenceOnly) continue;
    const ctx: RenderContext = { env, values: env.values, dashboardId: (ref) => referenceId(ref, entry.file.name, { byName, known, env: env.name }) };
    const rendered = renderTemplates(entry.layered.value, ctx);
    const problems = [...entry.layered.problems, ...renderProblems(entry, rendered)];
    if (problems.length === 0) {
      const made = validated(entry, rendered);
      if ('problems' in made) problems.push(...made.problems);
      else dashboards.push(made.dashboard);
      // Also beside schema errors: a wrong tileType must not hide a misspelt key of the same tile.
      warnings.push(...unknownKeys(entry, rendered.value).map((w) => deps.locate(entry.file, w, env)));
    }
    problems.forEach((p) => fail(entry.file, p));
  }
  return { environment: env, dashboards, diagnostics, warnings };
}

/** The files deployed in `env` with their ids there: the file's `id` after overrides and values, else derived. */
function withIds(files: readonly TemplateFile[], env: Environment, deps: ResolveDeps, fail: (f: TemplateFile, p: FileProblem) => void): Entry[] {
  const noReferences: RenderContext = { env, values: env.values, dashboardId: () => ({ problem: 'an id cannot refer to another dashboard' }) };
  return files.flatMap((file) => {
    const layered = applyOverrides(file.value, file.block, env);
    if (layered === undefined) return [];
    const rendered = renderTemplates(layered.value.id, noReferences);
    const raw = rendered.value;
    const badId = rendered.problems[0]?.message ?? (raw === undefined || raw === null || typeof raw === 'string' ? idProblem(raw) : `the id must be a string, got ${JSON.stringify(raw)}`);
    if (badId !== undefined) {
      fail(file, { path: layered.originOf(['id']), message: badId });
      return [];
    }
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: only narrows the type: any other raw (absent, null, '') parses to no id either
    const fromFile = typeof raw === 'string' && raw !== '' ? parseDashboardId(raw) : undefined;
    return [{ file, layered, id: fromFile ?? deps.deriveId(file.name), idSource: fromFile === undefined ? 'derived' : 'file' } satisfies Entry];
  });
}

/** `dashboard("../platform/hosts.yaml")`: relative to the referring file, or to the dashboards folder with a leading `/`. */
function referenceId(ref: string, from: string, scope: { byName: ReadonlyMap<string, Entry>; known: ReadonlySet<string>; env: string }): { id: string } | { problem: string } {
  const name = posix.normalize(ref.startsWith('/') ? ref.slice(1) : posix.join(posix.dirname(from), ref));
  const entry = scope.byName.get(name);
  if (entry !== undefined) return { id: entry.id };
  const where = scope.known.has(name) ? `${name} is not deployed in ${scope.env} (its dashcd.environments leaves ${scope.env} out)` : `no dashboard file ${name} in the dashboards folder`;
  return { problem: `dashboard(${JSON.stringify(ref)}): ${where}` };
}

function renderProblems(entry: Entry, rendered: RenderResult): FileProblem[] {
  return rendered.problems.map((p) => ({ path: entry.layered.originOf(p.path), message: p.message, template: p.template, ...(p.valuePath ? { valuePath: p.valuePath } : {}) }));
}

/** The schema check of the dashboard as this environment gets it; a problem under a value's output names the value. */
function validated(entry: Entry, rendered: RenderResult): { dashboard: DesiredDashboard } | { problems: FileProblem[] } {
  const { id: _id, metadata: _serverOwned, ...body } = rendered.value as PlainObject;
  const parsed = Dashboard.safeParse(body, { error: schemaErrorMap });
  if (!parsed.success) {
    return {
      problems: parsed.error.issues.map((issue) => {
        const path = issue.path as (string | number)[];
        const valuePath = valueAt(rendered.fromValues, path);
        return { path: entry.layered.originOf(path), message: issue.message, ...(valuePath ? { valuePath } : {}) };
      }),
    };
  }
  // Values can make one environment's rendering too large where the file itself is not.
  const tooLarge = bodySizeMessage(body);
  if (tooLarge !== undefined) return { problems: [{ path: [], message: tooLarge }] };
  const bodyJson = JSON.stringify(body);
  const contentHash = createHash('sha256').update(bodyJson).digest('hex');
  const name = (body.dashboardMetadata as { name: string }).name;
  return { dashboard: { id: entry.id, idSource: entry.idSource, file: entry.file.file, body: body as Dashboard, bodyJson, name, contentHash } };
}

/** Unknown keys of the rendered dashboard, at their place in the file (an override's member in `dashcd:`). */
function unknownKeys(entry: Entry, body: unknown): FileProblem[] {
  return findUnknownKeys(body).map((unknown) => ({ path: entry.layered.originOf([...unknown.parent, unknown.key] as (string | number)[]), message: unknownKeyMessage(unknown) }));
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
