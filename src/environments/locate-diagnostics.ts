import type { Diagnostic } from '../desired/diagnostic.js';
import { sourceLocator, type SourceLocator } from '../desired/locate-problems.js';
import { formatIssuePath } from '../schema/error-envelope.js';
import { getPath } from './deep-merge.js';
import { valueLayers, type Environment } from './environment.js';
import { groupValues, type EnvironmentsConfig } from './environments-config.js';
import { quoted } from '../lib/quoted.js';

type Path = (string | number)[];

/** A problem found on parsed values, before it has a place in the text. `path` is in the file's own value. */
export interface FileProblem {
  path: Path;
  message: string;
  /** The `${{ … }}` at fault inside the string at `path`: the column then points at it, not at the string. */
  template?: { source: string; offset: number };
  /** The value at fault: the message then also points at its definition in dashcd.yaml. */
  valuePath?: string[];
  /** An unknown value (`values.note`): the environment's fault, not the file's, when dashcd.yaml declares it for another. */
  missingValue?: string[];
}

export interface ProjectText {
  /** dashcd.yaml as shown in diagnostics (relative to cwd). */
  file: string;
  source: string;
  config: EnvironmentsConfig;
}

/** Parsed texts kept for their positions: a file's problems are located one after another. */
const KEPT_LOCATORS = 16;
/** Positions kept (a few numbers each): more than one environment lists of problems (MAX_LOAD_PROBLEMS). */
const KEPT_POSITIONS = 50_000;

/**
 * Turns problems into `file:line:col` diagnostics; a text is parsed for positions on first need, and kept while it
 * is among the last KEPT_LOCATORS used. Keeping each file's parse to the end held one per file with a problem, for
 * every environment: 6,000 committed files of one problem each ran a daemon out of memory.
 */
export function createDiagnosticLocator(project: ProjectText): (file: { file: string; source: string }, problem: FileProblem, env?: Environment) => Diagnostic {
  const locators = new Map<string, SourceLocator>();
  const locatorOf = (file: string, source: string): SourceLocator => {
    const known = locators.get(file);
    // Stryker disable next-line ConditionalExpression: a memo: parsing the text again finds the same positions
    if (known) {
      locators.delete(file);
      locators.set(file, known);
      return known;
    }
    const made = sourceLocator(source);
    locators.set(file, made);
    if (locators.size > KEPT_LOCATORS) locators.delete(locators.keys().next().value as string);
    return made;
  };
  // Positions found, by file and place: every environment lists most of the same problems, and a parse evicted from
  // the few kept would otherwise be made again for each (300 files of bad tiles, 20 environments: 70 s).
  const positions = new Map<string, { line: number; col: number }>();
  const positionOf = (file: { file: string; source: string }, problem: FileProblem): { line: number; col: number } => {
    const key = JSON.stringify([file.file, problem.path, problem.template?.source ?? null]);
    const known = positions.get(key);
    if (known !== undefined) return known;
    const locator = locatorOf(file.file, file.source);
    const node = locator.at(problem.path);
    const inside = problem.template && node.exact ? file.source.indexOf(problem.template.source, node.start) : -1;
    // Stryker disable next-line EqualityOperator: a node's text never ends right before a `${{` (a line break, comma, bracket or blank follows it)
    const { line, col } = inside !== -1 && inside < node.end ? locator.linePos(inside) : node;
    positions.set(key, { line, col });
    if (positions.size > KEPT_POSITIONS) positions.delete(positions.keys().next().value as string);
    return { line, col };
  };
  return (file, problem, env) => {
    const { line, col } = positionOf(file, problem);
    const definition = env && problem.valuePath ? valueDefinition(project, env, problem.valuePath, locatorOf(project.file, project.source)) : '';
    const atFault = env === undefined ? undefined : (problem.valuePath ?? (problem.missingValue && declaredElsewhere(project.config, problem.missingValue) ? problem.missingValue : undefined));
    const value = atFault ? { valueAtFault: `values.${atFault.join('.')}` } : {};
    return { file: file.file, line, col, path: formatIssuePath(problem.path), message: problem.message + definition, ...(env ? { env: env.name } : {}), ...value };
  };
}

/**
 * Whether the defaults, a group or an environment of dashcd.yaml declare the value: then an environment lacking it
 * (prod's `note` renamed `notes`) is that environment's mistake, as a wrong value is, not the file's.
 */
function declaredElsewhere(config: EnvironmentsConfig, path: readonly string[]): boolean {
  const layers = [config.values, ...Object.values(config.groups ?? {}).map(groupValues), ...Object.values(config.environments ?? {}).map((spec) => spec?.values)];
  return layers.some((values) => values !== undefined && getPath(values, path) !== undefined);
}

/** ` (values.top = "x" from environments.prod.values at dashcd.yaml:12:7)`: the most specific layer that sets it. */
function valueDefinition(project: ProjectText, env: Environment, valuePath: readonly string[], locator: SourceLocator): string {
  for (let depth = valuePath.length; depth >= 1; depth--) {
    const prefix = valuePath.slice(0, depth);
    for (const layer of valueLayers(project.config, env)) {
      const found = getPath(layer.values, prefix);
      if (found === undefined) continue;
      const { line, col } = locator.at([...layer.path, ...prefix]);
      const shown = quoted(getPath(env.values, valuePath) ?? found);
      const value = shown.length <= 60 ? ` = ${shown}` : '';
      return ` (values.${valuePath.join('.')}${value}, set in ${layer.path.join('.')} at ${project.file}:${line}:${col})`;
    }
  }
  return '';
}

/**
 * One line for a problem several environments share (a typo in a template fails in each): the same place and
 * message with the environments joined, `[dev, prod]`, in first-seen order.
 */
export function collapseByEnvironment(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const byKey = new Map<string, Diagnostic>();
  for (const d of diagnostics) {
    const key = JSON.stringify([d.file, d.line, d.col, d.path, d.message]);
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, { ...d });
    else if (d.env !== undefined && seen.env !== undefined && !seen.env.split(', ').includes(d.env)) seen.env = `${seen.env}, ${d.env}`;
  }
  return [...byKey.values()];
}
