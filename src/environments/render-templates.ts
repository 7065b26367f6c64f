import { closest } from '../lib/closest.js';
import { excerpt, listedNames } from '../lib/quoted.js';
import type { EnvironmentRef } from './apply-overrides.js';
import { getPath, isPlainObject, setOwn } from './deep-merge.js';
import type { Values } from './environments-config.js';
import { hasTemplate, parseTemplate, type Expression, type TemplatePart } from './template.js';

type Path = (string | number)[];
type ExprPart = Extract<TemplatePart, { kind: 'expr' }>;

export interface RenderContext {
  env: EnvironmentRef;
  values: Values;
  /** The id, in this environment, of the dashboard of `file` (as written: relative to the referring file). */
  dashboardId(file: string): { id: string } | { problem: string };
  /**
   * The most characters the templates of one dashboard may insert: the largest body its kind's target accepts. A
   * value used many times (a 1.5 MB one in 1,000 tiles) would otherwise make a dashboard no target takes, and gigabytes
   * of memory before its size could even be measured.
   */
  maxInserted: number;
  /**
   * What the templates of every dashboard of this environment may still insert, shared by their renderings: one
   * large value used in every file was paid once per file and once per environment (a daemon following a commit of
   * 20 such files in 100 environments ran out of memory at every start).
   */
  environmentBudget?: EnvironmentBudget;
}

/** Characters the templates of one environment's dashboards may insert together: eight times the largest body. */
export const ENVIRONMENT_INSERTED_MAX = 8 * 1024 * 1024;

export interface EnvironmentBudget {
  left: number;
}

export interface RenderProblem {
  /** Path of the string in the rendered dashboard. */
  path: Path;
  message: string;
  template: { source: string; offset: number };
  /** The value at fault, when one is (for pointing at its definition). */
  valuePath?: string[];
  /** An unknown value's path: the environment's fault when another environment, a group or the defaults declare it. */
  missingValue?: string[];
}

export interface RenderResult {
  value: unknown;
  problems: RenderProblem[];
  /** Characters the templates inserted so far (a value's as JSON); rendering stops inserting past ctx.maxInserted. */
  inserted: number;
  /** Paths (JSON of the path) whose content came from a value, with that value's path: where a schema error may be the value's. */
  fromValues: Map<string, string[]>;
  /** Whether this dashboard's problem about a limit (its own or its environment's) is reported: one per dashboard. */
  overLimit?: true;
}

type Evaluated = { ok: true; value: unknown } | { ok: false; message: string; valuePath?: string[]; missingValue?: string[] };

/**
 * Applies every template of a dashboard for one environment. A string that is exactly one template becomes the
 * value itself, with its type (a number, a boolean, an object such as a management zone); templates inside longer
 * strings take strings, numbers and booleans. Never throws: each problem is reported with where it is.
 */
export function renderTemplates(value: unknown, ctx: RenderContext): RenderResult {
  const result: RenderResult = { value: undefined, problems: [], inserted: 0, fromValues: new Map() };
  result.value = walk(value, [], ctx, result);
  return result;
}

function walk(value: unknown, path: Path, ctx: RenderContext, result: RenderResult): unknown {
  if (typeof value === 'string') return hasTemplate(value) ? renderString(value, path, ctx, result) : value;
  if (Array.isArray(value)) return value.flatMap((item, i) => renderItem(item, [...path, i], ctx, result));
  if (!isPlainObject(value)) return value;
  const out = {};
  for (const [key, member] of Object.entries(value)) setOwn(out, key, walk(member, [...path, key], ctx, result));
  return out;
}

/**
 * A list item that is a whole template giving an empty string is left out: `tags: [team, "${{ env.group }}"]` in an
 * environment without a group is `[team]`, not a tag that is empty (which the service would keep as one).
 */
function renderItem(item: unknown, path: Path, ctx: RenderContext, result: RenderResult): unknown[] {
  const rendered = walk(item, path, ctx, result);
  // Stryker disable next-line ConditionalExpression: the string check only narrows the type: any other item renders as itself, never ''
  return rendered === '' && typeof item === 'string' && isWhole(parseTemplate(item)) ? [] : [rendered];
}

function isWhole(parts: readonly TemplatePart[]): boolean {
  // Stryker disable next-line ConditionalExpression,OptionalChaining: a lone text part renders as itself, and only a string that is exactly '' renders to '' (it has no parts)
  return parts.length === 1 && parts[0]?.kind === 'expr';
}

function renderString(text: string, path: Path, ctx: RenderContext, result: RenderResult): unknown {
  const parts = parseTemplate(text);
  const whole = isWhole(parts);
  let out = '';
  for (const part of parts) {
    if (part.kind === 'text') {
      out += part.text;
      continue;
    }
    const evaluated = evaluate(part.expr, ctx, result.problems.length < HINTED_PROBLEMS);
    if (!evaluated.ok) {
      report(result, path, part, evaluated.message, evaluated.valuePath, evaluated.missingValue);
      continue;
    }
    // Past a limit the string stays as written, its text around the template included (it kept the template alone).
    if (!withinInsertLimit(evaluated.value, part, path, ctx, result)) return text;
    if (part.expr.kind === 'value') result.fromValues.set(JSON.stringify(path), part.expr.path);
    if (whole) return evaluated.value;
    const v = evaluated.value;
    if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out += String(v);
    else {
      const what = v === null ? 'null' : Array.isArray(v) ? 'a list' : 'an object';
      // Stryker disable next-line ConditionalExpression: only values give anything but a string here (env.* and dashboard() give strings); the check narrows the type
      report(result, path, part, `${part.source.slice(3, -2).trim()} is ${what}: inside a longer string a template needs a string, number or boolean (write it as the whole value to insert ${what})`, part.expr.kind === 'value' ? part.expr.path : undefined);
    }
  }
  return out;
}

/** Counts what a template inserts; past the dashboard's or the environment's limit, says so once (at that template) and false. */
function withinInsertLimit(value: unknown, part: ExprPart, path: Path, ctx: RenderContext, result: RenderResult): boolean {
  if (result.overLimit) return false;
  const budget = ctx.environmentBudget;
  // Spent by the dashboards before this one: this one's first template says so (it was left as its text, unsaid).
  const spent = budget !== undefined && budget.left < 0;
  if (!spent) {
    const size = insertedSize(value);
    result.inserted += size;
    if (budget !== undefined) budget.left -= size;
  }
  const valuePath = part.expr.kind === 'value' ? part.expr.path : undefined;
  if (result.inserted > ctx.maxInserted) {
    result.overLimit = true;
    report(result, path, part, `the templates insert more than ${ctx.maxInserted.toLocaleString('en-US')} characters into this dashboard, over what its target accepts in one body: a large value used many times? Use it fewer times, or make it smaller`, valuePath);
    return false;
  }
  if (budget !== undefined && budget.left < 0) {
    result.overLimit = true;
    report(result, path, part, `the templates of this environment's dashboards insert more than ${ENVIRONMENT_INSERTED_MAX.toLocaleString('en-US')} characters together: a large value used in many files? Use it in fewer, or make it smaller`, valuePath);
    return false;
  }
  return true;
}

/** Each object value's size, measured once however many templates insert it. */
const objectSizes = new WeakMap<object, number>();

function insertedSize(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (typeof value !== 'object' || value === null) return String(value).length;
  let size = objectSizes.get(value);
  if (size === undefined) objectSizes.set(value, (size = JSON.stringify(value).length));
  return size;
}

function report(result: RenderResult, path: Path, part: ExprPart, message: string, valuePath: string[] | undefined, missingValue?: string[]): void {
  result.problems.push({ path, message, template: { source: part.source, offset: part.offset }, ...(valuePath ? { valuePath } : {}), ...(missingValue ? { missingValue } : {}) });
}

/**
 * Problems of one dashboard after which an unknown value gets no did-you-mean: each hint compares the name with up
 * to 256 known ones, and a committed file of a thousand unknown names made a thousand of them in every pass.
 */
const HINTED_PROBLEMS = 20;

function evaluate(expr: Expression, ctx: RenderContext, hint: boolean): Evaluated {
  switch (expr.kind) {
    case 'invalid':
      return { ok: false, message: expr.message };
    case 'env':
      return { ok: true, value: expr.member === 'name' ? ctx.env.name : (ctx.env.group ?? '') };
    case 'dashboard': {
      const found = ctx.dashboardId(expr.file);
      return 'id' in found ? { ok: true, value: found.id } : { ok: false, message: found.problem };
    }
    case 'value':
      return lookupValue(ctx.values, expr.path, hint);
  }
}


/** `values.a.b`: unknown at any step is an error naming the step, with the nearest known name when `hint`. */
export function lookupValue(values: Values, path: readonly string[], hint = true): Evaluated {
  for (let depth = 1; depth <= path.length; depth++) {
    const parent = getPath(values, path.slice(0, depth - 1));
    if (isPlainObject(parent) && Object.hasOwn(parent, path[depth - 1] as string)) continue;
    const shown = excerpt(`values.${path.slice(0, depth).join('.')}`);
    if (!isPlainObject(parent)) return { ok: false, message: `${shown}: ${excerpt(`values.${path.slice(0, depth - 1).join('.')}`)} has no members`, valuePath: path.slice(0, depth - 1) };
    const known = Object.keys(parent);
    const nearest = hint ? closest(path[depth - 1] as string, known) : undefined;
    return {
      ok: false,
      message: `unknown value ${shown}${nearest ? ` — did you mean ${nearest}?` : ''} (${known.length > 0 ? `known: ${listedNames(known)}` : 'no values declared'})`,
      missingValue: path.slice(0, depth),
    };
  }
  return { ok: true, value: getPath(values, path) };
}
