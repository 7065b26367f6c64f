import { loadProjectConfigFor } from '../config/project-config.js';
import type { Diagnostic } from '../desired/diagnostic.js';
import { declaredEnvironments, type Environment } from '../environments/environment.js';
import { describeEnvironments } from '../environments/select-environments.js';
import { loadEnvironments } from '../reconcile/load-environments.js';
import type { CommandIo } from './command.js';
import { UsageError } from './exit-codes.js';
import { selectDashboards } from './dashboards-selection.js';
import { shownPath } from '../lib/shown-path.js';

/** The environment `preview` draws files as: the one `--env` names, else the only one declared. */
export interface PreviewEnvironment {
  environment: Environment;
  declared: Environment[];
  root: string;
  project: Awaited<ReturnType<typeof loadProjectConfigFor>>;
}

/**
 * `--env NAME` from the dashcd.yaml of the files' project (exit 64 listing the declared ones when there is no such
 * environment). Without `--env`, files that use templates or `dashcd:` (`templated`, as shown) look different in
 * each environment, so drawing them as written would show `${{ … }}`: the only environment is used, and with
 * several the choice is asked for (exit 64 listing them). Undefined: draw the files as written.
 */
export async function previewEnvironment(name: string | undefined, templated: readonly string[], io: CommandIo): Promise<PreviewEnvironment | undefined> {
  if (name === undefined && templated.length === 0) return undefined;
  const { root } = await selectDashboards({ cwd: io.cwd, dir: undefined, paths: [] });
  const project = await loadProjectConfigFor(root, io.cwd);
  const declared = declaredEnvironments(project.config);
  const list = `; declared:\n${describeEnvironments(declared).join('\n')}`;
  if (name === undefined) {
    if (declared.length === 0) return undefined;
    const [only] = declared;
    if (declared.length === 1 && only) return { environment: only, declared, root, project };
    throw new UsageError(`${templated.join(', ')} ${templated.length === 1 ? 'uses' : 'use'} templates, so ${templated.length === 1 ? 'it looks' : 'they look'} different in each environment: choose one with --env NAME${list}`);
  }
  const environment = declared.find((e) => e.name === name);
  if (!environment) throw new UsageError(`--env ${name}: no such environment${declared.length === 0 ? ' (dashcd.yaml declares none)' : list}`);
  return { environment, declared, root, project };
}

/**
 * The files as `environment` gets them (values, templates and overrides applied), by path as given; or the problems
 * that stop one of them from rendering there.
 */
export async function renderFilesFor(
  { environment, declared, root, project }: PreviewEnvironment,
  paths: readonly string[],
  io: CommandIo,
): Promise<{ kind: 'rendered'; bodies: Map<string, unknown> } | { kind: 'invalid'; diagnostics: Diagnostic[] }> {
  const load = await loadEnvironments({ root, cwd: io.cwd, only: paths, project, declared, selected: [environment] });
  const desired = load.environments[0]?.desired;
  if (!desired || desired.diagnostics.length > 0) return { kind: 'invalid', diagnostics: desired?.diagnostics ?? load.shared };
  const byFile = new Map(desired.dashboards.map((d) => [d.file, d.body as unknown]));
  return { kind: 'rendered', bodies: new Map(paths.map((path) => [path, byFile.get(shownPath(io.cwd, path))])) };
}
