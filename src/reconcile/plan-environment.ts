import { relative, resolve, sep } from 'node:path';
import { loadProjectConfigFor } from '../config/project-config.js';
import { readGitInfo } from '../desired/git-info.js';
import { strictly } from '../desired/strict.js';
import { declaredEnvironments } from '../environments/environment.js';
import { loadEnvironments } from './load-environments.js';
import { planLoaded, type PlanContext, type PlanDashboardsResult, type PlanOptions } from './plan-dashboards.js';

/**
 * planDashboards for one environment of the folder: dashcd.yaml read again (its values may have changed), the files
 * resolved for this environment, then planned against its target. A problem this environment's values cause (every
 * such diagnostic names it) stops all of its writes until fixed, whatever `tolerateInvalid` says: half an
 * environment rendered with a wrong value is worse than the last good state. Other problems are treated as in
 * planDashboards.
 */
export async function planEnvironment(name: string, ctx: PlanContext, options: PlanOptions = {}): Promise<PlanDashboardsResult> {
  const root = resolve(ctx.cwd, ctx.dir);
  const [project, git] = await Promise.all([loadProjectConfigFor(root, ctx.cwd), ctx.git ?? readGitInfo(root)]);
  if (project.diagnostics.length > 0) return { kind: 'invalid', diagnostics: project.diagnostics };
  const declared = declaredEnvironments(project.config);
  const environment = declared.find((e) => e.name === name);
  if (!environment) {
    const message = `environment ${name} is no longer declared in dashcd.yaml; nothing was written to it (restart the daemon to stop reconciling it)`;
    return { kind: 'invalid', diagnostics: [{ file: project.file ? relative(ctx.cwd, project.file).split(sep).join('/') : 'dashcd.yaml', line: 0, col: 0, path: 'environments', message, env: name }] };
  }
  const only = options.only?.map((file) => resolve(ctx.cwd, file));
  const load = await loadEnvironments({ root, cwd: ctx.cwd, ...(only ? { only } : {}), project, declared, selected: [environment] });
  const loaded = load.environments[0]?.desired ?? { dashboards: [], diagnostics: [], warnings: [], files: 0 };
  const desired = ctx.strict === true || project.config.strict === true ? strictly(loaded) : loaded;
  if (desired.diagnostics.some((d) => d.env !== undefined)) return { kind: 'invalid', diagnostics: desired.diagnostics, desired };
  return planLoaded(ctx, { project, desired, git }, options);
}
