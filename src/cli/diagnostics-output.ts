import type { Diagnostic } from '../desired/load-desired.js';
import { formatDiagnostic } from '../desired/load-desired.js';
import type { CommandIo } from './command.js';

/** Prints every diagnostic, and in GitHub Actions also an `::error` annotation so the PR shows it on the line. */
export function printDiagnostics(diagnostics: readonly Diagnostic[], io: CommandIo): void {
  const annotate = io.env.GITHUB_ACTIONS === 'true';
  for (const diagnostic of diagnostics) {
    io.stdout.write(`${formatDiagnostic(diagnostic)}\n`);
    if (annotate) io.stdout.write(`${githubAnnotation(diagnostic)}\n`);
  }
  const files = new Set(diagnostics.map((d) => d.file)).size;
  io.stderr.write(`✗ ${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'} in ${files} file${files === 1 ? '' : 's'}\n`);
}

/** GitHub's workflow command; `%`, CR and LF must be escaped in the message, `,` and `:` too in properties. */
export function githubAnnotation(d: Diagnostic): string {
  const prop = (v: string): string => v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/:/g, '%3A').replace(/,/g, '%2C');
  const data = (v: string): string => v.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const message = d.path ? `${d.path}: ${d.message}` : d.message;
  return `::error file=${prop(d.file)},line=${d.line},col=${d.col}::${data(message)}`;
}
