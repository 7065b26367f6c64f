import { hasChanges } from '../plan/build-plan.js';
import { booleanFlag, stringFlag, type CommandIo, type FlagValues } from './command.js';
import type { DashboardsSelection } from './dashboards-selection.js';
import { ExitCode } from './exit-codes.js';
import { writeEnvironmentOutFiles, type OutFile } from './plan-out-files.js';
import { previewDirOf, writeEnvironmentPreviews } from './plan-previews.js';
import { renderEnvironmentsHtml } from './render/render-html.js';
import { renderEnvironmentsJson, renderEnvironmentsMarkdown, renderEnvironmentsText, type EnvironmentSection } from './render/render-environments.js';
import { runEnvironments, type EnvironmentRun, type EnvironmentsMode } from './run-environments.js';

const RENDERERS: Record<string, (sections: readonly EnvironmentSection[]) => string> = {
  text: renderEnvironmentsText,
  json: renderEnvironmentsJson,
  markdown: renderEnvironmentsMarkdown,
  html: renderEnvironmentsHtml,
};

/**
 * `plan` over the chosen environments (all of them when none is chosen: planning writes nothing). Exit 4 when some
 * environment's target could not be reached, else 3 when some environment is invalid or its prune was refused, else with
 * `--detailed-exitcode` 2 when any environment has changes pending.
 */
export async function planEnvironments(mode: EnvironmentsMode, selection: DashboardsSelection, { flags, output, outFiles }: { flags: FlagValues; output: string; outFiles: readonly OutFile[] }, io: CommandIo): Promise<ExitCode> {
  // A plan only reads: a missing token is asked for with ReadConfig alone. JSON, HTML and markdown stdout stay one document (markdown holds the problems itself).
  const runs = await runEnvironments(mode, selection, flags, io, async () => undefined, { diagnosticsTo: output === 'text' ? 'stdout' : 'stderr', scopes: ['ReadConfig'] });
  const sections = runs.map(toSection);
  // As a single target's plan: pictures (one folder per environment), `--out` files, then stdout unless an .html file holds the page.
  const dir = previewDirOf(io.cwd, stringFlag(flags, 'preview-dir'));
  const links = dir === undefined ? '' : await writeEnvironmentPreviews(sections, dir, stringFlag(flags, 'preview-url'), io.cwd);
  await writeEnvironmentOutFiles(sections, outFiles);
  if (output !== 'html' || !outFiles.some((f) => f.extension === '.html')) io.stdout.write((RENDERERS[output] ?? renderEnvironmentsText)(sections) + (output === 'markdown' ? links : ''));
  // As a single target's plan: a prune the guard refused is exit 3 (4 wins), named on stderr whatever stdout's format.
  const refused = runs.flatMap((r) => (r.status === 'done' && r.planned.plan.prune.refused !== undefined ? [`✗ ${r.env.name}: ${r.planned.plan.prune.refused}; apply would write nothing\n`] : []));
  for (const line of refused) io.stderr.write(line);
  if (runs.some((r) => r.status === 'unreachable' || r.status === 'not-planned')) return ExitCode.TargetUnavailable;
  if (runs.some((r) => r.status === 'invalid') || refused.length > 0) return ExitCode.InvalidDesiredState;
  const pending = runs.some((r) => r.status === 'done' && hasChanges(r.planned.plan));
  return booleanFlag(flags, 'detailed-exitcode') && pending ? ExitCode.ChangesPending : ExitCode.Success;
}

function toSection(run: EnvironmentRun<unknown>): EnvironmentSection {
  const { name } = run.env;
  if (run.status === 'done') return { name, target: run.target.label, status: 'planned', plan: run.planned.plan };
  if (run.status === 'invalid') return { name, target: run.target, status: 'invalid', diagnostics: run.diagnostics };
  return { name, target: run.target, status: run.status, error: run.error };
}
