import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/**
 * A pull request's plan comment is what `plan --output markdown` prints: when the files are invalid it must still be
 * one markdown document showing the problems, and `--out` files must still be written for the job to upload.
 */
let project: Project | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await project?.cleanup();
  await server?.close();
  project = undefined;
  server = undefined;
});

const NO_OWNER = 'dashboardMetadata:\n  name: x\ntiles: []\n';
const PROBLEM = 'dashboards/a.yaml:2:3  dashboardMetadata.owner: Required';

describe('plan --output markdown with invalid files', () => {
  it('prints the problems as one markdown block (text on stderr) and writes each --out file in its format', async () => {
    project = await createProject({ 'dashboards/a.yaml': NO_OWNER });
    const result = await runDashcd(['plan', '--output', 'markdown', '--out', 'plan.json', '--out', 'plan.md', '--out', 'plan.txt', '--out', 'plan.html'], { cwd: project.root, env: {} });
    expect(result.code).toBe(3);
    expect(result.stdout).toBe(`### dashcd plan: 1 problem, nothing planned\n\n\`\`\`text\n${PROBLEM}\n\`\`\`\n`);
    expect(result.stderr).toBe(`${PROBLEM}\n✗ 1 problem in 1 file\n`);
    const read = (file: string): Promise<string> => readFile(join(project?.root ?? '', file), 'utf8');
    expect(JSON.parse(await read('plan.json'))).toMatchObject({ valid: false, errorCount: 1, diagnostics: [{ file: 'dashboards/a.yaml', line: 2, col: 3, message: 'Required' }] });
    expect(await read('plan.md')).toBe(result.stdout);
    expect(await read('plan.txt')).toBe(`${PROBLEM}\n`);
    expect(await read('plan.html')).toContain(PROBLEM);
  });

  it('--output html prints the page with the problems (plan --output html > plan.html was an empty file), the text on stderr', async () => {
    project = await createProject({ 'dashboards/a.yaml': NO_OWNER });
    const result = await runDashcd(['plan', '--output', 'html', '--out', 'plan.html'], { cwd: project.root, env: {} });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^<!DOCTYPE html>/i);
    expect(result.stdout).toContain(PROBLEM);
    expect(await readFile(join(project.root, 'plan.html'), 'utf8')).toBe(result.stdout);
    expect(result.stderr).toBe(`${PROBLEM}\n✗ 1 problem in 1 file\n`);
  });

  it('with environments, each invalid environment\'s section holds its problems, and stdout holds nothing else', async () => {
    project = await createProject({ 'dashboards/a.yaml': NO_OWNER, 'dashcd.yaml': 'environments:\n  dev:\n  prod:\n' });
    const result = await runDashcd(['plan', '--output', 'markdown'], { cwd: project.root, env: {} });
    expect(result.code).toBe(3);
    expect(result.stdout.startsWith('### dashcd plan for 2 environments\n')).toBe(true);
    expect(result.stdout).toContain('| `dev` | invalid: 1 problem (in its section); nothing planned |');
    expect(result.stdout).toContain('#### `prod` · embedded /e/prod\n\ninvalid: 1 problem; nothing planned\n\n```text\ndashboards/a.yaml:2:3  [prod] dashboardMetadata.owner: Required\n```');
    expect(result.stderr).toContain('dashboards/a.yaml:2:3  [dev, prod] dashboardMetadata.owner: Required\n');
  });

  it('a target the plan cannot be made against (exit 4) still leaves one markdown document saying why; json stays empty', async () => {
    // plan.md was empty, and so was the pull request's comment.
    server = await startTestServer();
    project = await createProject({ 'dashboards/a.yaml': 'dashboardMetadata:\n  name: x\n  owner: o\ntiles: []\n' });
    const env = { DT_ENV_URL: `${server.baseUrl}/e/local`, DT_API_TOKEN: 'dt0c01.AAAAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' };
    const result = await runDashcd(['plan', '--output', 'markdown'], { cwd: project.root, env });
    expect(result.code).toBe(4);
    const reason = /^dashcd plan: (.*)$/m.exec(result.stderr)?.[1] ?? '';
    expect(reason).toContain('rejected');
    expect(result.stdout).toBe(`### dashcd plan: nothing planned, the target could not be read\n\n\`\`\`text\n${reason}\n\`\`\`\n`);
    const json = await runDashcd(['plan', '--output', 'json'], { cwd: project.root, env });
    expect([json.code, json.stdout]).toEqual([4, '']);
  });
});
