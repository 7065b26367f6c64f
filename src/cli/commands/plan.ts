import { renderPlanJson } from '../render/render-json.js';
import { renderPlanMarkdown } from '../render/render-markdown.js';
import { renderPlanText } from '../render/render-text.js';
import { hasChanges, type Plan } from '../../plan/build-plan.js';
import { booleanFlag, defineCommand, stringFlag } from '../command.js';
import { concurrencyFlag, dataFlag, dirFlag, pathsPositional, targetFlag } from '../common-flags.js';
import { printDiagnostics } from '../diagnostics-output.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { withTarget } from '../with-target.js';
import { planFromFlags, selectionFromArgs } from '../plan-from-flags.js';

const RENDERERS: Record<string, (plan: Plan) => string> = {
  text: renderPlanText,
  json: renderPlanJson,
  markdown: renderPlanMarkdown,
};

export const planCommand = defineCommand({
  path: ['plan'],
  summary: 'Show what apply would change: create, update (as a JSON Patch), unchanged, orphan',
  description:
    'Compares every dashboard file with the live dashboard, ignoring server-owned fields, key and tag order and the\nservice’s read-side defaults. With --detailed-exitcode: 0 no changes, 2 changes pending (Terraform’s convention).',
  flags: {
    dir: dirFlag,
    target: targetFlag,
    data: dataFlag,
    output: { type: 'string', description: 'text | json | markdown', default: 'text', valueName: 'format' },
    'detailed-exitcode': { type: 'boolean', description: 'Exit 2 when there are changes pending' },
    // Plan only reads: more GETs in flight keep a 1,000-dashboard plan from waiting on round trips.
    concurrency: { ...concurrencyFlag, default: '16' },
  },
  positionals: [pathsPositional],
  quietLogs: true,
  examples: ['dashcd plan', 'dashcd plan --output markdown > plan.md', 'dashcd plan --output json --detailed-exitcode', 'dashcd plan dashboards/team/api.yaml dashboards/ops/'],
  async run({ flags, positionals }, io) {
    const output = stringFlag(flags, 'output') ?? 'text';
    const render = Object.hasOwn(RENDERERS, output) ? RENDERERS[output] : undefined;
    if (!render) throw new UsageError(`--output must be text, json or markdown, got '${output}'`);
    const selection = await selectionFromArgs(flags, positionals, io);
    // A plan only reads: a pull-request job can (and should) run it with a read-only token.
    return withTarget({ target: stringFlag(flags, 'target'), data: stringFlag(flags, 'data'), scopes: ['ReadConfig'] }, io, async (target) => {
      const result = await planFromFlags(selection, flags, io, target);
      if (result.kind === 'invalid') {
        printDiagnostics(result.diagnostics, io);
        return ExitCode.InvalidDesiredState;
      }
      io.stdout.write(render(result.plan));
      return booleanFlag(flags, 'detailed-exitcode') && hasChanges(result.plan) ? ExitCode.ChangesPending : ExitCode.Success;
    });
  },
});
