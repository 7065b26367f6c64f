import { resolve } from 'node:path';
import { renderPlanJson } from '../render/render-json.js';
import { renderPlanText } from '../render/render-text.js';
import { colorFor } from '../render/colors.js';
import { hasChanges, type Plan } from '../../plan/build-plan.js';
import type { CheckCacheFile } from '../../desired/check-cache-file.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagValues } from '../command.js';
import { printWarnings } from '../diagnostics-output.js';
import type { Diagnostic } from '../../desired/diagnostic.js';
import { missingFolder } from '../../desired/discover-files.js';
import { ExitCode } from '../exit-codes.js';
import { withTarget } from '../with-target.js';
import { planFromFlags } from '../plan-from-flags.js';
import type { DashboardsSelection } from '../dashboards-selection.js';
import type { OutFile } from '../plan-out-files.js';

/**
 * `plan` against one target, from the target's session on: the part of the command that loads the HTTP client, the
 * reconciler and the renderers (plan.ts loads it once it knows the run needs it, with the check cache already being
 * read meanwhile).
 */
export async function planOneTarget(
  selection: DashboardsSelection,
  { flags, output, outFiles, opened }: { flags: FlagValues; output: string; outFiles: readonly OutFile[]; opened: Promise<CheckCacheFile | undefined> },
  io: CommandIo,
  reportInvalid: (diagnostics: readonly Diagnostic[], warnings?: readonly Diagnostic[]) => Promise<ExitCode>,
): Promise<ExitCode> {
  // No folder, nothing to plan: said before a target (the embedded store's data dir) is opened or created for it.
  const missing = await missingFolder(selection.root, io.cwd);
  if (missing) return reportInvalid([missing]);
  // A plan only reads: a pull-request job can (and should) run it with a read-only token.
  return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes: ['ReadConfig'] }, io, async (target) => {
    const result = await planFromFlags(selection, flags, io, target, opened);
    if (result.kind === 'invalid') return reportInvalid(result.diagnostics, result.desired?.warnings);
    printWarnings(result.desired.warnings, io, 'stderr');
    const { plan } = result;
    await emitPlan(plan, { flags, output, outFiles }, io);
    if (plan.prune.refused !== undefined) {
      io.stderr.write(`✗ ${plan.prune.refused}; apply would write nothing\n`);
      return ExitCode.InvalidDesiredState;
    }
    return booleanFlag(flags, 'detailed-exitcode') && hasChanges(plan) ? ExitCode.ChangesPending : ExitCode.Success;
  });
}

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

/**
 * The PNGs, the `--out` files, then stdout in the `--output` format. The markdown comment points to the JSON file
 * (else the first file) for its full plan; with `--output html` and an `.html` file stdout stays empty (one page).
 */
async function emitPlan(plan: Plan, { flags, output, outFiles }: { flags: FlagValues; output: string; outFiles: readonly OutFile[] }, io: CommandIo): Promise<void> {
  const dir = stringFlag(flags, 'preview-dir');
  const links = dir === undefined ? '' : await (await import('../plan-previews.js')).writePlanPreviews(plan, resolve(io.cwd, dir), stringFlag(flags, 'preview-url'), io.cwd);
  if (outFiles.length > 0) await (await import('../plan-out-files.js')).writeOutFiles(plan, outFiles);
  if (output === 'html' && outFiles.some((f) => f.extension === '.html')) return;
  const pointer = (outFiles.find((f) => f.extension === '.json') ?? outFiles[0])?.given;
  const render = await RENDERERS[output]!();
  io.stdout.write(render(plan, { io, out: pointer }) + (output === 'markdown' ? links : ''));
}

