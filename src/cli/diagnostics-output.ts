import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Diagnostic } from '../desired/load-desired.js';
import { formatDiagnostic } from '../desired/load-desired.js';
import type { CommandIo } from './command.js';

/** Prints every diagnostic, and in GitHub Actions also an `::error` annotation so the PR shows it on the line. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CommandIo): void {
  const annotate = io.env.GITHUB_ACTIONS === 'true';
  const isFile = memo((file: string) => statSync(resolve(io.cwd, file), { throwIfNoEntry: false })?.isFile() === true);
  for (const diagnostic of diagnostics) {
    io.stdout.write(`${formatDiagnostic(diagnostic)}\n`);
    if (annotate) io.stdout.write(`${githubAnnotation(diagnostic, isFile(diagnostic.file))}\n`);
  }
  const files = new Set(diagnostics.map((d) => d.file)).size;
  io.stderr.write(`✗ ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}\n`);
}

/**
 * GitHub's workflow command; `%`, CR and LF must be escaped in the message, `,` and `:` too in properties.
 * `file=` only for a file that exists (a missing folder is no place to annotate, and GitHub would drop the line),
 * `line=`/`col=` only for a real position (0 means none): then the message names the path itself.
 */
export function githubAnnotation(d: Diagnostic, isFile: boolean): string {
  const prop = (v: string): string => v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/:/g, '%3A').replace(/,/g, '%2C');
  const data = (v: string): string => v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const properties: string[] = [];
  if (isFile) properties.push(`file=${prop(d.file)}`);
  if (isFile && d.line > 0) properties.push(`line=${d.line}`, `col=${d.col}`);
  const message = d.path ? `${d.path}: ${d.message}` : d.message;
  const where = isFile || message.includes(d.file) ? '' : `${d.file}: `;
  return `::error${properties.length > 0 ? ` ${properties.join(',')}` : ''}::${data(where + message)}`;
}

function memo<T>(f: (key: string) => T): (key: string) => T {
  const seen = new Map<string, T>();
  return (key) => {
    if (!seen.has(key)) seen.set(key, f(key));
    return seen.get(key) as T;
  };
}
