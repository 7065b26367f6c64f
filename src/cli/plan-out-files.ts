import { dirname, extname, resolve } from 'node:path';
import { requireRealFolders } from './real-folder.js';
import type { Plan } from '../plan/build-plan.js';
import { writeFileDurable } from '../lib/durable-file.js';
import { CliError, ExitCode, UsageError } from './exit-codes.js';
import { formatDiagnostic, formatWarning, type Diagnostic } from '../desired/diagnostic.js';
import { renderDiagnosticsJson, renderDiagnosticsMarkdown } from './diagnostics-output.js';
import { renderEnvironmentsJson, renderEnvironmentsMarkdown, renderEnvironmentsText, type EnvironmentSection } from './render/render-environments.js';
import { renderEnvironmentsHtml, renderPlanHtml } from './render/render-html.js';
import { renderPlanJson } from './render/render-json.js';
import { renderPlanMarkdown } from './render/render-markdown.js';
import { renderPlanText } from './render/render-text.js';

/** Each `--out` file holds the whole plan (never shortened) in the format its extension names. */
const FILE_RENDERERS: Record<string, (plan: Plan) => string> = {
  '.json': renderPlanJson,
  '.html': renderPlanHtml,
  '.md': (plan) => renderPlanMarkdown(plan, { complete: true }),
  '.txt': (plan) => renderPlanText(plan),
};

/** The same formats for a plan over environments: each file holds every environment's section. */
const ENVIRONMENT_FILE_RENDERERS: Record<keyof typeof FILE_RENDERERS, (sections: readonly EnvironmentSection[]) => string> = {
  '.json': renderEnvironmentsJson,
  '.html': renderEnvironmentsHtml,
  '.md': renderEnvironmentsMarkdown,
  '.txt': renderEnvironmentsText,
};

export interface OutFile {
  /** As given, for messages and for the markdown comment's "full plan" pointer. */
  given: string;
  path: string;
  extension: string;
  /** The working folder: a folder on the way from it to `path` must not be a symbolic link. */
  cwd: string;
}

/** Checked before the plan is computed, so a typo costs nothing (exit 64 naming the allowed extensions). */
export function outFilesOf(cwd: string, values: readonly string[]): OutFile[] {
  return values.map((given) => {
    const extension = extname(given).toLowerCase();
    if (!Object.hasOwn(FILE_RENDERERS, extension)) {
      throw new UsageError(`--out ${given}: the extension picks the format; use one of ${Object.keys(FILE_RENDERERS).join(', ')}`);
    }
    return { given, path: resolve(cwd, given), extension, cwd };
  });
}

export async function writeOutFiles(plan: Plan, files: readonly OutFile[]): Promise<void> {
  for (const file of files) await writeOutFile(file, FILE_RENDERERS[file.extension]!(plan));
}

/** The problems that stopped a plan, in each `--out` file's format: the plan those files would have held is none. */
/** The HTML page of a plan that could not be made: its files' problems, as `--output html` and `--out x.html` write it. */
export function renderInvalidHtml(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[]): string {
  return renderEnvironmentsHtml([{ name: 'plan', target: 'not planned', status: 'invalid', diagnostics: [...diagnostics, ...warnings] }]);
}

const INVALID_FILE_RENDERERS: Record<keyof typeof FILE_RENDERERS, (diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[]) => string> = {
  '.json': renderDiagnosticsJson,
  '.html': renderInvalidHtml,
  '.md': renderDiagnosticsMarkdown,
  '.txt': (diagnostics, warnings) => `${[...diagnostics.map(formatDiagnostic), ...warnings.map(formatWarning)].join('\n')}\n`,
};

export async function writeInvalidOutFiles(diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[], files: readonly OutFile[]): Promise<void> {
  for (const file of files) await writeOutFile(file, INVALID_FILE_RENDERERS[file.extension]!(diagnostics, warnings));
}

export async function writeEnvironmentOutFiles(sections: readonly EnvironmentSection[], files: readonly OutFile[]): Promise<void> {
  for (const file of files) await writeOutFile(file, ENVIRONMENT_FILE_RENDERERS[file.extension]!(sections));
}

/** A path that cannot be written is the user's to fix, named with the reason (not an unexpected error). */
/**
 * Writes one `--out` file, refusing a folder on the way that is a symbolic link, as `--preview-dir` does: a pull
 * request committing `reports` as a link had the plan written wherever it led.
 */
async function writeOutFile({ given, path, cwd }: OutFile, text: string): Promise<void> {
  await requireRealFolders(cwd, [{ folder: dirname(path), naming: `--out ${given}` }], 'name a file in a folder of its own (plan files are written only into real folders)');
  try {
    await writeFileDurable(path, text);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CliError(`cannot write --out ${path} (${reason}): check that its folder exists and is writable`, ExitCode.Unexpected);
  }
}
