import { loadProjectConfigFor } from '../config/project-config.js';
import { declaredEnvironments } from '../environments/environment.js';
import { defaultDashboardsRoot } from './dashboards-root.js';

/**
 * The embedded environments the project in `cwd` declares (those an embedded store serves), in its order; empty when
 * there is no project or it declares none. A dashcd.yaml that does not load is validate's business: also empty.
 */
export async function projectEmbeddedEnvironments(cwd: string): Promise<string[]> {
  try {
    const project = await loadProjectConfigFor(await defaultDashboardsRoot(cwd), cwd);
    if (project.diagnostics.length > 0) return [];
    return declaredEnvironments(project.config).filter((e) => e.target.kind === 'embedded').map((e) => e.name);
  } catch {
    return [];
  }
}
