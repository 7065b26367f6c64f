import { resolve } from 'node:path';
import { renderPlanJson } from '../render/render-json.js';
import { renderPlanText } from '../render/render-text.js';
import { colorFor } from '../render/colors.js';
import { hasChanges, type Plan } from '../../plan/build-plan.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { cacheFlag, concurrencyFlag, dataFlag, dirFlag, pathsPositional, pruneFlags, strictFlag, targetFlag } from '../common-flags.js';
import { printDiagnostics, printWarnings, renderDiagnosticsJson } from '../diagnostics-output.js';
import type { Diagnostic } from '../../desired/diagnostic.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { withTarget } from '../with-target.js';
import { planFromFlags } from '../plan-from-flags.js';
import { selectionFromArgs } from '../dashboards-selection.js';
import { allEnvsFlag, envFlag, environmentMode } from '../environment-choice.js';
import type { OutFile } from '../plan-out-files.js';

type RenderContext = { io: CommandIo; out: string | undefined };
type Renderer = (plan: Plan, context: RenderContext) => string;

/**
 * Markdown, HTML, `--out` files, previews and environments are loaded when a run asks for them: the HTML renderer
 * and the previews load the PNG renderer's native module, which a plain `plan --output json` (CI's) never uses.
 */
const RENDERERS: Record<string, () => Renderer | Promise<Renderer>> = {
  text: () => (plan, { io }) => renderPlanText(plan, { color: colorFor(io.stdout, io.env) }),
  json: () => renderPlanJson,
  markdown: async () => {
    const { renderPlanMarkdown } = await import('../render/render-markdown.js');
    return (plan, { out }) => renderPlanMarkdown(plan, out === undefined ? {} : { fullPlan: out });
  },
  html: async () => (await import('../render/render-html.js')).renderPlanHtml,
};

export const planCommand = defineCommand({
  path: ['plan'],
  summary: 'Show what apply would change: create, adopt, update (as a JSON Patch), delete, unchanged, orphan',
  description:
    'Compares every dashboard file with the live dashboard, ignoring server-owned fields, key and tag order and the\nservice’s read-side defaults. With --detailed-exitcode: 0 no changes, 2 changes pending (Terraform’s convention).\nWith pruning on (--prune, or prune: true in dashcd.yaml) owned dashboards without a file are shown as delete;\nwhen the prune guards refuse (--max-delete, empty folder) plan exits 3 with the reason. Paths or a subfolder --dir\nplan only those files (same ids, no orphans).',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    output: { type: 'string', description: 'text | json | markdown | html (stdout)', default: 'text', valueName: 'format' },
    out: {
      type: 'string',
      multiple: true,
      description: 'Also write the whole plan (never shortened) to this file, in the format its extension names: .json, .html, .md, .txt (repeatable; a shortened markdown comment points to it)',
      valueName: 'path',
    },
    'preview-dir': { type: 'string', description: 'Also write a before/after PNG per dashboard to be written into this folder', valueName: 'dir' },
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
    if (!Object.hasOwn(RENDERERS, output)) throw new UsageError(`--output must be text, json, markdown or html, got '${output}'`);
    if (stringFlag(flags, 'preview-url') !== undefined && stringFlag(flags, 'preview-dir') === undefined) throw new UsageError('--preview-url needs --preview-dir (the files it links)');
    const outs = listOf(flags, 'out');
    const outFiles = outs.length === 0 ? [] : (await import('../plan-out-files.js')).outFilesOf(io.cwd, outs);
    const selection = await selectionFromArgs(flags, positionals, io);
    const mode = await environmentMode(selection.root, flags, io);
    if (mode.kind === 'invalid') return reportInvalid(output, io, mode.diagnostics);
    if (mode.kind === 'environments') return (await import('../plan-environments.js')).planEnvironments(mode, selection, { flags, output, outFiles }, io);
    // A plan only reads: a pull-request job can (and should) run it with a read-only token.
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes: ['ReadConfig'] }, io, async (target) => {
      const result = await planFromFlags(selection, flags, io, target);
      if (result.kind === 'invalid') return reportInvalid(output, io, result.diagnostics, result.desired?.warnings);
      printWarnings(result.desired.warnings, io, 'stderr');
      const { plan } = result;
      await emitPlan(plan, { flags, output, outFiles }, io);
      if (plan.prune.refused !== undefined) {
        io.stderr.write(`✗ ${plan.prune.refused}; apply would write nothing\n`);
        return ExitCode.InvalidDesiredState;
      }
      return booleanFlag(flags, 'detailed-exitcode') && hasChanges(plan) ? ExitCode.ChangesPending : ExitCode.Success;
    });
  },
});

/**
 * The PNGs, the `--out` files, then stdout in the `--output` format. The markdown comment points to the JSON file
 * (else the first file) for its full plan; with `--output html` and an `.html` file stdout stays empty (one page).
 */
async function emitPlan(plan: Plan, { flags, output, outFiles }: { flags: FlagValues; output: string; outFiles: readonly OutFile[] }, io: CommandIo): Promise<void> {
  const dir = stringFlag(flags, 'preview-dir');
  const links = dir === undefined ? '' : await (await import('../plan-previews.js')).writePlanPreviews(plan, resolve(io.cwd, dir), stringFlag(flags, 'preview-url'));
  if (outFiles.length > 0) await (await import('../plan-out-files.js')).writeOutFiles(plan, outFiles);
  if (output === 'html' && outFiles.some((f) => f.extension === '.html')) return;
  const pointer = (outFiles.find((f) => f.extension === '.json') ?? outFiles[0])?.given;
  const render = await RENDERERS[output]!();
  io.stdout.write(render(plan, { io, out: pointer }) + (output === 'markdown' ? links : ''));
}

/**
 * Problems that stop the plan (exit 3). With `--output json` stdout stays JSON: the problems as a JSON document
 * there (renderDiagnosticsJson), their text on stderr.
 */
function reportInvalid(output: string, io: CommandIo, diagnostics: readonly Diagnostic[], warnings: readonly Diagnostic[] = []): ExitCode {
  if (output === 'json') io.stdout.write(renderDiagnosticsJson(diagnostics, warnings));
  printDiagnostics(diagnostics, io, warnings, output === 'json' ? 'stderr' : 'stdout');
  return ExitCode.InvalidDesiredState;
}

function listOf(flags: FlagValues, name: string): string[] {
  const value = flags[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}
