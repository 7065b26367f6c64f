import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../desired/diagnostic.js';
import { formatDiagnostic, formatWarning } from '../desired/diagnostic.js';
import type { CommandIo } from './command.js';
import { printable } from '../lib/printable.js';
import { problemTotal } from '../desired/capped-problems.js';

type Level = 'error' | 'warning';

/**
 * Prints every problem, then every warning, and in GitHub Actions also `::error`/`::warning` annotations so the PR
 * shows them on the line. `stderr` when stdout is machine output (`plan --output json`): no annotations then.
 */
export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CommandIo, warnings: readonly Diagnostic[] = [], to: 'stdout' | 'stderr' = 'stdout'): void {
  const isFile = existingFile(io);
  writeAll(diagnostics, 'error', io, to, isFile);
  writeAll(warnings, 'warning', io, to, isFile);
  // Files only: a dashboards folder that is not there is a problem, not "1 problem in 1 file".
  const files = new Set(diagnostics.map((d) => d.file).filter(isFile)).size;
  const where = files > 0 ? ` in ${count(files, 'file')}` : '';
  const also = warnings.length > 0 ? ` (and ${count(problemTotal(warnings), 'warning')})` : '';
  io.stderr.write(`✗ ${count(problemTotal(diagnostics), 'problem')}${where}${also}\n`);
}

/**
 * Warnings of a run that goes on. `stdout` (validate) gets annotations too; `stderr` (plan, apply) keeps them out of
 * the plan on stdout, which may be JSON or a PR comment.
 */
export function printWarnings(warnings: readonly Diagnostic[], io: CommandIo, to: 'stdout' | 'stderr'): void {
  writeAll(warnings, 'warning', io, to, existingFile(io));
}

/** One problem in machine output: every key always present (`line`/`col` 0 and `env` null when there is none). */
export interface DiagnosticJson {
  severity: Level;
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
  env: string | null;
}

/**
 * What `plan --output json` prints when the desired state is invalid (exit 3), as Terraform's `-json` does: the
 * problems as JSON on stdout, never text, so a pipe into jq still parses.
 *
 *     { "valid": false, "errorCount": n, "warningCount": n, "diagnostics": DiagnosticJson[] }   // errors first
 *
 * A file lists its first 100 problems and a line counting the rest: the counts include the rest.
 */
export function renderDiagnosticsJson(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): string {
  // The counts are the problems, as every count a person reads: a summary line stands for those it left out.
  const json = { valid: false, errorCount: problemTotal(diagnostics), warningCount: problemTotal(warnings), diagnostics: diagnosticsToJson(diagnostics, warnings) };
  return `${JSON.stringify(json, null, 2)}\n`;
}

export function diagnosticsToJson(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): DiagnosticJson[] {
  const one = (severity: Level) => (d: Diagnostic): DiagnosticJson => ({ severity, file: d.file, line: d.line, col: d.col, path: d.path, message: d.message, env: d.env ?? null });
  return [...diagnostics.map(one('error')), ...warnings.map(one('warning'))];
}

/**
 * Problems as markdown, for a pull request comment: one fenced block of the lines `validate` prints (each one line,
 * control characters made spaces), the fence longer than any run of backticks in them so no name can close it.
 */
export function diagnosticsMarkdown(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): string {
  return fencedLines([...diagnostics.map(formatDiagnostic), ...warnings.map(formatWarning)]);
}

/** Printable lines in one fenced block whose fence no run of backticks in them can close. */
function fencedLines(lines: readonly string[]): string {
  const longest = Math.max(2, ...lines.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((run) => run.length))));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${lines.join('\n')}\n${fence}`;
}

/**
 * `plan --output markdown` when the target could not be planned against (exit 4): a heading and why, as the
 * environments' table says `unreachable: …`. plan.md was empty, and so was the pull request's comment.
 */
export function renderUnplannedMarkdown(reason: string): string {
  return `### dashcd plan: nothing planned, the target could not be read\n\n${fencedLines(reason.split('\n').map(printable))}\n`;
}

/** `plan --output markdown` when the desired state stops the plan (exit 3): a heading, then the problems. */
export function renderDiagnosticsMarkdown(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): string {
  return `### dashcd plan: ${count(problemTotal(diagnostics), 'problem')}, nothing planned\n\n${diagnosticsMarkdown(diagnostics, warnings)}\n`;
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** Whether a diagnostic's path names a file that is there (relative to the command's folder), asked once a path. */
function existingFile(io: CommandIo): (file: string) => boolean {
  return memo((file: string) => {
    try {
      return statSync(resolve(io.cwd, file)).isFile();
    } catch {
      // Missing, a link that loops or points nowhere, unreadable: no file to count or annotate.
      return false;
    }
  });
}

function writeAll(diagnostics: readonly Diagnostic[], level: Level, io: CommandIo, to: 'stdout' | 'stderr', isFile: (file: string) => boolean): void {
  const annotate = to === 'stdout' && io.env.GITHUB_ACTIONS === 'true';
  for (const diagnostic of diagnostics) {
    io[to].write(`${level === 'warning' ? formatWarning(diagnostic) : formatDiagnostic(diagnostic)}\n`);
    if (annotate) io.stdout.write(`${githubAnnotation(diagnostic, isFile(diagnostic.file), level)}\n`);
  }
}

/**
 * GitHub's workflow command; `%`, CR and LF must be escaped in the message, `,` and `:` too in properties, and any
 * other control character of a file name or message is a space (lib/printable.ts): the line goes to the CI log.
 * `file=` only for a file that exists (a missing folder is no place to annotate, and GitHub would drop the line),
 * `line=`/`col=` only for a real position (0 means none): then the message names the path itself.
 */
export function githubAnnotation(d: Diagnostic, isFile: boolean, level: Level = 'error'): string {
  const data = (v: string): string => printable(v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'));
  const prop = (v: string): string => data(v).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const properties: string[] = [];
  if (isFile) properties.push(`file=${prop(d.file)}`);
  if (isFile && d.line > 0) properties.push(`line=${d.line}`, `col=${d.col}`);
  const message = d.path ? `${d.path}: ${d.message}` : d.message;
  const where = isFile || message.includes(d.file) ? '' : `${d.file}: `;
  return `::${level}${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${data(where + message)}`;
}

function memo<T>(f: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    if (!seen.has(key)) seen.set(key, f(key));
    return seen.get(key) as T;
  };
}
