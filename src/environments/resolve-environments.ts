import type { Diagnostic } from '../desired/diagnostic.js';
import { closest } from '../lib/closest.js';
import type { DashboardId } from '../schema/ids.js';
import { isDocumentShaped } from '../desired/detect-kind.js';
import { DASHCD_KEY, DashcdBlock, DocumentDashcdBlock, type AnyDashcdBlock } from './dashcd-block.js';
import { isPlainObject } from './deep-merge.js';
import type { Environment } from './environment.js';
import { groupValues } from './environments-config.js';
import { createDiagnosticLocator, type FileProblem, type ProjectText } from './locate-diagnostics.js';
import { resolveEnvironment, type EnvironmentDesired, type TemplateFile } from './resolve-environment.js';
import { templatesIn } from './template.js';
import { pushAll } from '../lib/push-all.js';
import { completed, completedInTurns, type Steps } from '../lib/in-turns.js';
import { moreProblems } from '../desired/capped-problems.js';
import { FileOrderBudget } from '../desired/problem-budget.js';
import { excerpt, listedNames } from '../lib/quoted.js';

export interface ResolveInput {
  /** Every dashboard file of the folder, parsed (their `dashcd:` member not yet checked). */
  files: readonly Omit<TemplateFile, 'block'>[];
  /**
   * The files there are but whose value is unknown (they do not parse): a reference to one names its own problem,
   * and no value is said to be unused, as it may be theirs.
   */
  unread?: readonly string[];
  project: ProjectText;
  /** Every declared environment: names in files are checked against all of them, whichever are chosen. */
  declared: readonly Environment[];
  /** The environments to resolve. */
  selected: readonly Environment[];
  deriveId(name: string): DashboardId;
}

export interface ResolveResult {
  environments: EnvironmentDesired[];
  /** Problems that are the same in every environment (a bad `dashcd:` member): the file counts for none. */
  diagnostics: Diagnostic[];
  /** Values no dashboard uses, at their definitions in dashcd.yaml. */
  warnings: Diagnostic[];
}

/**
 * The environments stage, pure: parsed files and dashcd.yaml in, one desired state per environment out, each with
 * its own diagnostics, so a bad value in one environment stops only that one. Run at once (tests) or in turns
 * (`resolveEnvironmentsInTurns`), one file of one environment a step.
 */
export function resolveEnvironments(input: ResolveInput): ResolveResult {
  return completed(resolveSteps(input));
}

/** The same, letting the event loop in between files (lib/in-turns.ts): a daemon's listeners answer meanwhile. */
export function resolveEnvironmentsInTurns(input: ResolveInput): Promise<ResolveResult> {
  return completedInTurns(resolveSteps(input));
}

function* resolveSteps(input: ResolveInput): Steps<ResolveResult> {
  const locate = createDiagnosticLocator(input.project);
  const names = new Set(input.declared.flatMap((e) => (e.group === null ? [e.name] : [e.name, e.group])));
  const diagnostics: Diagnostic[] = [];
  const listing = new FileOrderBudget();
  const files: TemplateFile[] = [];
  for (const file of input.files) {
    const checked = checkBlock(file.value, names);
    if ('problems' in checked) pushAll(diagnostics, listing.list(checked.problems, (more, why) => ({ path: [], message: moreProblems(more, why) })).map((p) => locate(file, p)));
    else files.push({ ...file, ...(checked.block ? { block: checked.block } : {}) });
  }
  const unread = input.unread ?? [];
  // Which values the templates use is known only once every file is read, and there is one to read: a missing
  // dashboards folder warned of each value as unused beside its own error.
  const unused = unread.length > 0 || input.files.length === 0 ? { global: [], byEnvironment: new Map<string, Diagnostic[]>() } : unusedValues(input);
  const environments: EnvironmentDesired[] = [];
  for (const env of input.selected) {
    const desired = yield* resolveEnvironment(files, env, { deriveId: input.deriveId, locate, unread: new Set(unread) });
    environments.push({ ...desired, warnings: [...desired.warnings, ...(unused.byEnvironment.get(env.name) ?? [])] });
  }
  return { environments, diagnostics, warnings: unused.global };
}

/**
 * The file's `dashcd:` member, by the schema of the file's kind, its environment and group names checked against the
 * declared ones.
 */
function checkBlock(value: Readonly<Record<string, unknown>>, names: ReadonlySet<string>): { block?: AnyDashcdBlock } | { problems: FileProblem[] } {
  const raw = value[DASHCD_KEY];
  if (raw === undefined) return {};
  const parsed = (isDocumentShaped(value) ? DocumentDashcdBlock : DashcdBlock).safeParse(raw);
  if (!parsed.success) return { problems: parsed.error.issues.map((i) => ({ path: [DASHCD_KEY, ...(i.path as (string | number)[])], message: i.message })) };
  const block = parsed.data;
  const unknown = (name: string): boolean => !names.has(name);
  const listed = listedNames([...names]);
  const limits = [['tiles', block.tiles], ['sections', 'sections' in block ? block.sections : undefined]] as const;
  const problems: FileProblem[] = [
    ...(block.environments ?? []).flatMap((name, i) => (unknown(name) ? [{ path: [DASHCD_KEY, 'environments', i], name }] : [])),
    ...Object.keys(block.overrides ?? {}).flatMap((name) => (unknown(name) ? [{ path: [DASHCD_KEY, 'overrides', name], name }] : [])),
    ...limits.flatMap(([member, items]) =>
      Object.entries(items ?? {}).flatMap(([item, limit]) => limit.environments.flatMap((name, i) => (unknown(name) ? [{ path: [DASHCD_KEY, member, item, 'environments', i], name }] : []))),
    ),
  ].map(({ path, name }) => {
    // As `--env prdo` is answered on the command line: one edit away is a typo.
    const near = closest(name, [...names], 1);
    return { path, message: `unknown environment or group ${excerpt(name)}${near === undefined ? '' : ` — did you mean ${near}?`} (declared in dashcd.yaml: ${listed})` };
  });
  return problems.length > 0 ? { problems } : { block };
}

/** Unused values that get a did-you-mean: each compares the name with up to 256 used ones, in every pass. */
const HINTED_UNUSED = 20;

/**
 * A value declared in dashcd.yaml that no template of any file names: a warning at its first definition. One whose
 * name is close to a name templates do use is most likely misspelled (`managmentZone:` under prod leaves prod with
 * the defaults' `managementZone`): it says which, and it is a warning of the environments that layer feeds, so
 * `--strict` makes it an error there.
 */
function unusedValues(input: ResolveInput): { global: Diagnostic[]; byEnvironment: Map<string, Diagnostic[]> } {
  const used = new Set<string>();
  for (const file of input.files) {
    for (const { part } of templatesIn(file.value)) if (part.expr.kind === 'value') used.add(part.expr.path[0] as string);
  }
  const { config } = input.project;
  const everyone = input.selected.map((e) => e.name);
  const layers: { path: string[]; values: unknown; feeds: string[] }[] = [
    { path: ['values'], values: config.values, feeds: everyone },
    ...Object.entries(config.groups ?? {}).map(([name, spec]) => ({ path: ['groups', name, 'values'], values: groupValues(spec), feeds: input.selected.filter((e) => e.group === name).map((e) => e.name) })),
    ...Object.entries(config.environments ?? {}).map(([name, spec]) => ({ path: ['environments', name, 'values'], values: spec.values, feeds: everyone.filter((e) => e === name) })),
  ];
  const declared = new Set(layers.flatMap(({ values }) => Object.keys(isPlainObject(values) ? values : {})));
  const reported = new Set<string>();
  const locate = createDiagnosticLocator(input.project);
  const project = { file: input.project.file, source: input.project.source };
  const global: Diagnostic[] = [];
  const byEnvironment = new Map<string, Diagnostic[]>();
  const usedNames = [...used];
  for (const { path, values, feeds } of layers) {
    for (const name of Object.keys(isPlainObject(values) ? values : {})) {
      if (used.has(name) || reported.has(name)) continue;
      reported.add(name);
      const hint = reported.size <= HINTED_UNUSED ? closest(name, usedNames) : undefined;
      const unused = `value ${excerpt(name)} is declared but no dashboard uses it`;
      const problem = { path: [...path, name], message: unusedMessage(unused, name, hint, hint !== undefined && declared.has(hint)) };
      if (hint === undefined) global.push(locate(project, problem));
      else for (const env of input.selected.filter((e) => feeds.includes(e.name))) appendTo(byEnvironment, env.name, locate(project, problem, env));
    }
  }
  return { global, byEnvironment };
}

/**
 * Which of the two names to change. A near name the templates use that is declared too: this one is the misspelling
 * (an override under an environment, typically). One that nothing declares: the template is (its file's own error
 * says so), and this value is the one it meant.
 */
function unusedMessage(unused: string, name: string, near: string | undefined, nearIsDeclared: boolean): string {
  const [named, nearest] = [excerpt(name), near === undefined ? undefined : excerpt(near)];
  if (nearest === undefined) return `${unused} (\${{ values.${named} }})`;
  if (nearIsDeclared) return `${unused} — did you mean ${nearest}? (templates use \${{ values.${nearest} }})`;
  return `${unused} — a template uses \${{ values.${nearest} }}, which nothing declares: a misspelling of ${named}?`;
}

/** Adds to a map of lists in place (copying the list at each addition made the hints quadratic in their number). */
function appendTo<T>(lists: Map<string, T[]>, key: string, item: T): void {
  const list = lists.get(key);
  if (list) list.push(item);
  else lists.set(key, [item]);
}
