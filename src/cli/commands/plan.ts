import { defineCommand, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { cacheFlag, concurrencyFlag, dataFlag, dirFlag, pathsPositional, pruneFlags, strictFlag, targetFlag } from '../common-flags.js';
import { printDiagnostics, renderDiagnosticsJson, renderDiagnosticsMarkdown, renderUnplannedMarkdown } from '../diagnostics-output.js';
import { errorMessage } from '../../lib/error-message.js';
import { DataDirLockedError } from '../../server/data-dir-locked.js';
import type { OutFile } from '../plan-out-files.js';
import type { Diagnostic } from '../../desired/diagnostic.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { openCacheFor } from '../check-cache-run.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { concurrencyOf } from '../plan-from-flags.js';
import { allEnvsFlag, envFlag, environmentMode } from '../environment-choice.js';

/** The `--output` formats (plan-run.ts renders them). */
const OUTPUTS = ['text', 'json', 'markdown', 'html'];

export const planCommand = defineCommand({
  path: ['plan'],
  summary: 'Show what apply would change: create, adopt, update (as a JSON Patch), delete, unchanged, orphan',
  description:
    'Compares every dashboard file with the live dashboard, ignoring server-owned fields, key and tag order and the\nservice’s read-side defaults. With --detailed-exitcode: 0 no changes, 2 changes pending (Terraform’s convention).\nWith pruning on (--prune, or prune: true in dashcd.yaml) owned dashboards without a file are shown as delete;\nwhen the prune guards refuse (--max-delete, empty folder) plan exits 3 with the reason. Paths or a subfolder --dir\nplan only those files (same ids, no orphans).',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    output: { type: 'string', description: 'text | json | markdown | html, on stdout (html with an .html --out: in that file only)', default: 'text', valueName: 'format' },
    out: {
      type: 'string',
      multiple: true,
      description: 'Also write the whole plan (never shortened) to this file, in the format its extension names: .json, .html, .md, .txt (repeatable; a shortened markdown comment points to it)',
      valueName: 'path',
    },
    'preview-dir': { type: 'string', description: 'Also write a before/after PNG of each dashboard the plan would create or update into this folder', valueName: 'dir' },
    'preview-url': { type: 'string', description: 'Base URL the --preview-dir files will be served from: the markdown plan links them', valueName: 'url' },
    'detailed-exitcode': { type: 'boolean', description: 'Exit 2 when there are changes pending (create, adopt, update or delete)' },
    ...pruneFlags,
    // Plan only reads: more GETs in flight keep a 1,000-dashboard plan from waiting on round trips.
    concurrency: { ...concurrencyFlag, default: '16' },
    strict: strictFlag,
    cache: cacheFlag,
    env: { ...envFlag, description: `${envFlag.description}; without it, every environment` },
    'all-envs': allEnvsFlag,
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd plan', 'dashcd plan --output markdown --out plan.json > plan.md', 'dashcd plan --output html --out plan.html --out plan.json --preview-dir previews', 'dashcd plan --prune', 'dashcd plan --output json --detailed-exitcode', 'dashcd plan dashboards/platform/hosts.yaml dashboards/frontend/', 'dashcd plan --env production --output markdown'],
  async run({ flags, positionals }, io) {
    const output = stringFlag(flags, 'output') ?? 'text';
    if (!OUTPUTS.includes(output)) throw new UsageError(`--output must be text, json, markdown or html, got '${output}'`);
    if (stringFlag(flags, 'preview-url') !== undefined && stringFlag(flags, 'preview-dir') === undefined) throw new UsageError('--preview-url needs --preview-dir (the files it links)');
    // Used once the files are checked; refused before any is read (it came after every file's check and warnings).
    concurrencyOf(flags);
    const outs = listOf(flags, 'out');
    const outFiles = outs.length === 0 ? [] : (await import('../plan-out-files.js')).outFilesOf(io.cwd, outs);
    const selection = await selectionFromArgs(flags, positionals, io);
    const mode = await environmentMode(selection.root, flags, io);
    if (mode.kind === 'invalid') return reportInvalid(output, outFiles, io, mode.diagnostics);
    if (mode.kind === 'environments') return (await import('../plan-environments.js')).planEnvironments(mode, selection, { flags, output, outFiles }, io);
    // Read and inflated (off this thread) while the client, the reconciler and the renderers load.
    const opened = openCacheFor(selection.root, flags, io);
    const { planOneTarget } = await import('./plan-run.js');
    return planOneTarget(selection, { flags, output, outFiles, opened }, io, (diagnostics, warnings) => reportInvalid(output, outFiles, io, diagnostics, warnings)).catch((error: unknown) => unplanned(output, io, error));
  },
});

/**
 * A target the plan could not be made against (exit 4) still leaves `--output markdown` one document, saying why, as
 * an invalid file does (exit 3). The error goes on to run.ts, which names it on stderr and gives the exit code.
 */
function unplanned(output: string, io: CommandIo, error: unknown): never {
  const targetFailed = (error instanceof CliError && error.exitCode === ExitCode.TargetUnavailable) || error instanceof DataDirLockedError;
  if (output === 'markdown' && targetFailed) io.stdout.write(renderUnplannedMarkdown(errorMessage(error)));
  throw error;
}

/**
 * Problems that stop the plan (exit 3). With `--output json` or `markdown` stdout stays one document of that format
 * (a pull request comment shows the problems as a block), their text on stderr; each `--out` file holds them in its
 * format, so a CI job uploading plan.json finds it.
 */
async function reportInvalid(output: string, outFiles: readonly OutFile[], io: CommandIo, diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): Promise<ExitCode> {
  if (outFiles.length > 0) await (await import('../plan-out-files.js')).writeInvalidOutFiles(diagnostics, warnings, outFiles);
  if (output === 'json') io.stdout.write(renderDiagnosticsJson(diagnostics, warnings));
  if (output === 'markdown') io.stdout.write(renderDiagnosticsMarkdown(diagnostics, warnings));
  // `plan --output html > plan.html` in CI: the page says what is wrong, instead of an empty file.
  if (output === 'html') io.stdout.write((await import('../plan-out-files.js')).renderInvalidHtml(diagnostics, warnings));
  printDiagnostics(diagnostics, io, warnings, output === 'text' ? 'stdout' : 'stderr');
  return ExitCode.InvalidDesiredState;
}

function listOf(flags: FlagValues, name: string): string[] {
  const value = flags[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}
