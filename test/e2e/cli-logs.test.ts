import { afterAll, describe, expect, it } from 'vitest';
import { createProject, runDashcdChild, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const DASHBOARD = markdownDashboard({ name: 'Logs demo', owner: 'ops', markdown: 'hello' });

describe('CLI log output', () => {
  const projects: Project[] = [];
  afterAll(async () => Promise.all(projects.map((p) => p.cleanup())));

  it('apply reports each write once on stdout, and logs it on stderr only when DASHCD_LOG_LEVEL asks', async () => {
    const project = await createProject({ 'dashboards/a.yaml': DASHBOARD, 'dashboards/b.yaml': DASHBOARD.replace('Logs demo', 'Other') });
    projects.push(project);
    const quiet = await runDashcdChild(['apply'], { cwd: project.root });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toContain('+ created');
    expect(quiet.stderr).not.toContain('dashboard created');
    await project.write('dashboards/a.yaml', DASHBOARD.replace('hello', 'hello again'));
    const verbose = await runDashcdChild(['apply'], { cwd: project.root, env: { DASHCD_LOG_LEVEL: 'info' } });
    expect(verbose.code).toBe(0);
    expect(verbose.stdout).toContain('~ updated');
    expect(verbose.stderr).toContain('dashboard updated');
  });
});
