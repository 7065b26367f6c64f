import { resolve } from 'node:path';
import { writeFileDurable } from '../../lib/durable-file.js';
import { renderPlanJson } from '../render/render-json.js';
import { renderPlanMarkdown } from '../render/render-markdown.js';
import { renderPlanText } from '../render/render-text.js';
import { colorFor } from '../render/colors.js';
import { hasChanges, type Plan } from '../../plan/build-plan.js';
import { booleanFlag, defineCommand, stringFlag, type CommandIo } from '../command.js';
import { concurrencyFlag, dataFlag, dirFlag, pathsPositional, pruneFlags, strictFlag, targetFlag } from '../common-flags.js';
import { printDiagnostics, printWarnings } from '../diagnostics-output.js';
import { CliError, ExitCode, UsageError } from '../exit-codes.js';
import { withTarget } from '../with-target.js';
import { planFromFlags, selectionFromArgs } from '../plan-from-flags.js';
import { allEnvsFlag, envFlag, environmentMode } from '../environment-choice.js';
import { planEnvironments } from '../plan-environments.js';

type RenderContext = { io: CommandIo; out: string | undefined };

const RENDERERS: Record<string, (plan: Plan, context: RenderContext) => string> = {
  text: (plan, { io }) => renderPlanText(plan, { color: colorFor(io.stdout, io.env) }),
  json: renderPlanJson,
  markdown: (plan, { out }) => renderPlanMarkdown(plan, out === undefined ? {} : { fullPlan: out }),
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
    output: { type: 'string', description: 'text | json | markdown', default: 'text', valueName: 'format' },
    out: { type: 'string', description: 'Also write the whole plan as JSON to this file (the full plan a shortened markdown comment points to)', valueName: 'path' },
    'detailed-exitcode': { type: 'boolean', description: 'Exit 2 when there are changes pending (create, adopt, update or delete)' },
    ...pruneFlags,
    // Plan only reads: more GETs in flight keep a 1,000-dashboard plan from waiting on round trips.
    concurrency: { ...concurrencyFlag, default: '16' },
    strict: strictFlag,
    env: { ...envFlag, description: `${envFlag.description}; without it, every environment` },
    'all-envs': allEnvsFlag,
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd plan', 'dashcd plan --output markdown --out plan.json > plan.md', 'dashcd plan --prune', 'dashcd plan --output json --detailed-exitcode', 'dashcd plan dashboards/team/api.yaml dashboards/ops/', 'dashcd plan --env production --output markdown'],
  async run({ flags, positionals }, io) {
    const output = stringFlag(flags, 'output') ?? 'text';
    const render = Object.hasOwn(RENDERERS, output) ? RENDERERS[output] : undefined;
    if (!render) throw new UsageError(`--output must be text, json or markdown, got '${output}'`);
    const selection = await selectionFromArgs(flags, positionals, io);
    const mode = await environmentMode(selection.root, flags, io);
    if (mode.kind === 'invalid') {
      printDiagnostics(mode.diagnostics, io);
      return ExitCode.InvalidDesiredState;
    }
    if (mode.kind === 'environments') return planEnvironments(mode, selection, { flags, output }, io);
    // A plan only reads: a pull-request job can (and should) run it with a read-only token.
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes: ['ReadConfig'] }, io, async (target) => {
      const result = await planFromFlags(selection, flags, io, target);
      if (result.kind === 'invalid') {
        printDiagnostics(result.diagnostics, io, result.desired?.warnings);
        return ExitCode.InvalidDesiredState;
      }
      printWarnings(result.desired.warnings, io, 'stderr');
      const { plan } = result;
      const out = stringFlag(flags, 'out');
      if (out !== undefined) await writePlanFile(resolve(io.cwd, out), plan);
      io.stdout.write(render(plan, { io, out }));
      if (plan.prune.refused !== undefined) {
        io.stderr.write(`✗ ${plan.prune.refused}; apply would write nothing\n`);
        return ExitCode.InvalidDesiredState;
      }
      return booleanFlag(flags, 'detailed-exitcode') && hasChanges(plan) ? ExitCode.ChangesPending : ExitCode.Success;
    });
  },
});

/** `--out`: a path that cannot be written is the user's to fix, named with the reason (not an unexpected error). */
async function writePlanFile(path: string, plan: Plan): Promise<void> {
  try {
    await writeFileDurable(path, renderPlanJson(plan));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new CliError(`cannot write --out ${path} (${reason}): check that its folder exists and is writable`, ExitCode.Unexpected);
  }
}
