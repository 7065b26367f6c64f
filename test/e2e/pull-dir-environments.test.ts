import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';

/*
 * `dashcd pull --env NAME --dir DIR` in a project whose dashcd.yaml declares environments: a DIR that does not exist
 * yet is made, as without environments; a DIR outside the project is refused saying so, not as if no environments
 * were declared.
 */

const CONFIG = 'environments:\n  dev:\n  prod-us:\n';
const HOSTS = `dashboardMetadata: { name: Hosts, owner: ops }
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: notes
`;

let project: Project;
let outside: string;
beforeEach(async () => {
  project = await createProject({ 'dashcd.yaml': CONFIG, 'dashboards/hosts.yaml': HOSTS });
  outside = await mkdtemp(join(tmpdir(), 'dashcd-outside-'));
});
afterEach(async () => {
  await project.cleanup();
  await rm(outside, { recursive: true, force: true });
});

const dashcd = (...argv: string[]): Promise<CliResult> => runDashcd(argv, { cwd: project.root });

describe('dashcd pull --env --dir in a project with environments', () => {
  it('makes a --dir inside the project that does not exist yet, as it does without environments', async () => {
    expect((await dashcd('apply', '--env', 'dev')).code).toBe(0);
    const pulled = await dashcd('pull', '--env', 'dev', '--all', '--dir', 'imported3');
    expect(pulled.code, pulled.stdout + pulled.stderr).toBe(0);
    expect(pulled.stdout).toMatch(/^↓ pulled {2}[0-9a-f-]{36} {2}imported3\/hosts\.yaml\n$/);
    expect(await readdir(join(project.root, 'imported3'))).toEqual(['hosts.yaml']);
    // The folder is a dashboards root of its own beside dashcd.yaml: its file means the live dashboard there.
    const again = await dashcd('pull', '--env', 'dev', '--all', '--dir', 'imported3');
    expect(again.stdout).toMatch(/^= up to date {2}[0-9a-f-]{36} {2}imported3\/hosts\.yaml\n$/);
  });

  it('makes the dashboards folder of a project that has none yet', async () => {
    await project.remove('dashboards/hosts.yaml');
    await rm(join(project.root, 'dashboards'), { recursive: true });
    const pulled = await dashcd('pull', '--env', 'dev', '--all');
    expect(pulled.code, pulled.stderr).toBe(0);
    expect(pulled.stderr).toContain('nothing to pull from');
    expect(existsSync(join(project.root, 'dashboards'))).toBe(true);
  });

  it('refuses a --dir outside the project, naming the project’s dashcd.yaml and what to do (exit 64)', async () => {
    const dir = join(outside, 'somewhere');
    const refused = await dashcd('pull', '--env', 'prod-us', '--all', '--dir', dir);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(
      `dashcd pull: --dir ${dir} is outside the project of dashcd.yaml, whose environments --env names: pull reads the dashcd.yaml beside the dashboards ` +
        `folder that holds --dir, and there is none at or above ${dir}. Pull into a folder inside the project (such as dashboards/imported), then move the files where you want them`,
    );
    expect(refused.stderr).not.toContain('--env needs environments');
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a --dir in another project whose dashcd.yaml declares no environments, naming both files', async () => {
    await writeFile(join(outside, 'dashcd.yaml'), 'prune: true\n');
    const dir = join(outside, 'dashboards');
    const refused = await dashcd('pull', '--env', 'prod-us', '--all', '--dir', dir);
    expect(refused.code).toBe(64);
    expect(refused.stderr).toMatch(/--dir \S+ is outside the project of dashcd\.yaml, whose environments --env names: .* and that is \S+\/dashcd\.yaml, which declares none\. /);
  });
});
