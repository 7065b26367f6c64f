/**
 * The template syntax of dashboard files: `${{ values.NAME }}`, `${{ env.name }}`, `${{ env.group }}` and
 * `${{ dashboard("../other.yaml") }}`, inside any string or as a whole value. It lives inside YAML strings, so a
 * file stays valid YAML, and it cannot start a flow mapping the way `{{ … }}` does. `$${{` writes a literal `${{`.
 * Shell-style `${VAR}` (common in markdown tiles) is plain text.
 */
import { quoted } from '../lib/quoted.js';
export type Expression =
  | { kind: 'value'; path: string[] }
  | { kind: 'env'; member: 'name' | 'group' }
  | { kind: 'dashboard'; file: string }
  | { kind: 'invalid'; message: string };

export type TemplatePart =
  | { kind: 'text'; text: string }
  /** `offset`: where `${{` starts in the string; `source`: the whole `${{ … }}`. */
  | { kind: 'expr'; expr: Expression; source: string; offset: number };

const OPEN = '${{';
const CLOSE = '}}';
const VALUE_PATH = /^values((?:\.[A-Za-z0-9_-]+)+)$/;
const DASHBOARD = /^dashboard\(\s*(?:"([^"]*)"|'([^']*)')\s*\)$/;

/** Whether a string holds template syntax at all (the cheap test before `parseTemplate`). */
export function hasTemplate(text: string): boolean {
  return text.includes(OPEN);
}

/** The string's parts in order; adjacent text (escapes included) is one part. */
export function parseTemplate(text: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let buffer = '';
  let at = 0;
  for (let open = text.indexOf(OPEN); open !== -1; open = text.indexOf(OPEN, at)) {
    if (text[open - 1] === '$') {
      buffer += text.slice(at, open - 1) + OPEN;
      at = open + OPEN.length;
      continue;
    }
    buffer += text.slice(at, open);
    if (buffer !== '') parts.push({ kind: 'text', text: buffer });
    buffer = '';
    const close = text.indexOf(CLOSE, open + OPEN.length);
    if (close === -1) {
      parts.push({ kind: 'expr', expr: { kind: 'invalid', message: 'unclosed ${{ (a template ends with }})' }, source: text.slice(open), offset: open });
      return parts;
    }
    const source = text.slice(open, close + CLOSE.length);
    parts.push({ kind: 'expr', expr: parseExpression(text.slice(open + OPEN.length, close).trim()), source, offset: open });
    at = close + CLOSE.length;
  }
  buffer += text.slice(at);
  if (buffer !== '') parts.push({ kind: 'text', text: buffer });
  return parts;
}

export function parseExpression(text: string): Expression {
  const value = VALUE_PATH.exec(text);
  if (value) return { kind: 'value', path: (value[1] as string).slice(1).split('.') };
  if (text === 'env.name' || text === 'env.group') return { kind: 'env', member: text === 'env.name' ? 'name' : 'group' };
  const dashboard = DASHBOARD.exec(text);
  // One of the two quote groups always matched.
  if (dashboard) return { kind: 'dashboard', file: (dashboard[1] ?? dashboard[2]) as string };
  return {
    kind: 'invalid',
    message: `unknown template ${quoted(text)}: use values.NAME, env.name, env.group or dashboard("file.yaml")`,
  };
}

/** Every expression in a value's strings, with the path of the string holding it (keys are never templates). */
export function* templatesIn(value: unknown, path: (string | number)[] = []): Generator<{ path: (string | number)[]; part: Extract<TemplatePart, { kind: 'expr' }> }> {
  if (typeof value === 'string') {
    if (!hasTemplate(value)) return;
    for (const part of parseTemplate(value)) if (part.kind === 'expr') yield { path, part };
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* templatesIn(item, [...path, i]);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) yield* templatesIn(item, [...path, key]);
  }
}

/**
 * What a file's templates and `dashcd:` member use, as written (`values.timeframe`, `env.name`,
 * `dashboard("db.yaml")`, `dashcd:`): what replacing the file with one environment's rendered dashboard would lose.
 */
export function templateUses(value: Readonly<Record<string, unknown>>): string[] {
  const uses = new Set<string>();
  for (const { part } of templatesIn(value)) {
    const { expr } = part;
    if (expr.kind === 'value') uses.add(`values.${expr.path.join('.')}`);
    else if (expr.kind === 'env') uses.add(`env.${expr.member}`);
    else if (expr.kind === 'dashboard') uses.add(`dashboard("${expr.file}")`);
  }
  if (value.dashcd !== undefined) uses.add('dashcd:');
  return [...uses];
}
