import { loadProjectConfigFor } from '../config/project-config.js';
import { declaredEnvironments } from '../environments/environment.js';
import { defaultDashboardsRoot, findDashboardsRoot } from './dashboards-root.js';

/**
 * A line for stderr when a token is made for an environment the project in `cwd` does not use: `token create` in the
 * sample project without `--env` made a `local` token that every declared environment (`/e/dev`, …) answered with
 * 401. Undefined when there is no project, it declares no embedded environment, or names this one; a dashcd.yaml
 * that does not load is validate's business, not this note's.
 */
export async function tokenEnvironmentNote(env: string, cwd: string): Promise<string | undefined> {
  try {
    const project = await loadProjectConfigFor(await findDashboardsRoot(await defaultDashboardsRoot(cwd), cwd), cwd);
    if (project.diagnostics.length > 0) return undefined;
    const embedded = declaredEnvironments(project.config).filter((e) => e.target.kind === 'embedded').map((e) => e.name);
    if (embedded.length === 0 || embedded.includes(env)) return undefined;
    return `note: this token is for environment ${env} (/e/${env}) only; dashcd.yaml here declares ${embedded.join(', ')}: make one for them with --env NAME\n`;
  } catch {
    return undefined;
  }
}
