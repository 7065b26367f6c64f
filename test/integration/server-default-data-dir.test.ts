import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';

const DASHBOARD = 'dashboardMetadata:\n  name: checkout\n  owner: team\ntiles: []\n';

describe('the default data dir .dashcd/ in a repository', () => {
  let project: Project | undefined;
  afterEach(async () => project?.cleanup());

  it('is created by a command without a target and never shows in git status', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': DASHBOARD }, { git: true });
    expect(existsSync(join(project.root, '.dashcd'))).toBe(false);
    const applied = await runDashcd(['apply'], { cwd: project.root });
    expect(applied.code, applied.stderr).toBe(0);
    expect(existsSync(join(project.root, '.dashcd', 'env', 'local', 'dashboards'))).toBe(true);
    expect(await readFile(join(project.root, '.dashcd', '.gitignore'), 'utf8')).toBe('*\n');
    expect(await project.git('status', '--porcelain', '--untracked-files=all')).toBe('');
  });
});
