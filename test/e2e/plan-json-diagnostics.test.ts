import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';

const INVALID = 'dashboardMetadata:\n  name: Broken\ntiles: 5\n';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

describe('plan --output json with an invalid dashboards folder (exit 3)', () => {
  it('prints the problems as one JSON document on stdout (file, line, col, path, message), their text on stderr only, even in GitHub Actions', async () => {
    project = await createProject({ 'dashboards/broken.yaml': INVALID });
    const result = await runDashcd(['plan', '--output', 'json'], { cwd: project.root, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toEqual({
      valid: false,
      errorCount: 2,
      warningCount: 0,
      diagnostics: [
        { severity: 'error', file: 'dashboards/broken.yaml', line: 2, col: 3, path: 'dashboardMetadata.owner', message: 'Required', env: null },
        { severity: 'error', file: 'dashboards/broken.yaml', line: 3, col: 8, path: 'tiles', message: expect.stringContaining('expected array') as string, env: null },
      ],
    });
    expect(result.stderr).toContain('dashboards/broken.yaml:3:8  tiles: ');
    expect(result.stderr).toMatch(/✗ 2 problems in 1 file\n$/);
  });

  it('counts the problems a file’s summary line stands for, as the text and markdown do (it counted the 101 lines of 180)', async () => {
    project = await createProject({ 'dashboards/many.yaml': `dashboardMetadata: {name: M, owner: o}\ntiles:\n${'  - {bogus: 1}\n'.repeat(60)}` });
    const result = await runDashcd(['plan', '--output', 'json'], { cwd: project.root });
    expect(result.code).toBe(3);
    const report = JSON.parse(result.stdout) as { errorCount: number; diagnostics: { message: string }[] };
    expect(report.diagnostics).toHaveLength(101);
    expect(report.diagnostics[100]?.message).toBe('and 80 more problems in this file, not listed: fix these first');
    expect(report.errorCount).toBe(180);
    expect(result.stderr).toMatch(/✗ 180 problems in 1 file\n$/);
  });

  it('an invalid dashcd.yaml is JSON on stdout too', async () => {
    project = await createProject({ 'dashcd.yaml': 'prune: maybe\n', 'dashboards/a.yaml': 'dashboardMetadata:\n  name: A\n  owner: me\ntiles: []\n' });
    const result = await runDashcd(['plan', '--output', 'json'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: false, errorCount: 1, diagnostics: [{ severity: 'error', file: 'dashcd.yaml', path: 'prune' }] });
  });

  it('with environments: each invalid environment carries its problems in the JSON, stdout has no text line', async () => {
    project = await createProject({ 'dashcd.yaml': 'environments:\n  dev:\n', 'dashboards/broken.yaml': INVALID });
    const result = await runDashcd(['plan', '--output', 'json'], { cwd: project.root });
    expect(result.code).toBe(3);
    const json = JSON.parse(result.stdout) as { environments: { name: string; error: string; diagnostics: unknown[] }[] };
    expect(json.environments).toEqual([
      expect.objectContaining({
        name: 'dev',
        error: 'invalid: 2 problems; nothing planned',
        diagnostics: [expect.objectContaining({ file: 'dashboards/broken.yaml', line: 2, path: 'dashboardMetadata.owner', env: 'dev' }), expect.objectContaining({ path: 'tiles', env: 'dev' })],
      }),
    ]);
    expect(result.stderr).toContain('dashboards/broken.yaml:2:3  [dev] dashboardMetadata.owner: Required');
  });
});
