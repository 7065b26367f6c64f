import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

describe('the git facts of a plan, over a folder its committers control', () => {
  it("never lets a committed HEAD, objects/, refs/ and config make the dashboards folder a repository whose fsmonitor runs with the job's secrets", async () => {
    // git searched up from the dashboards folder, found it a repository of its own, and ran the committed
    // `core.fsmonitor` command on `git status`, with every variable of the CI step (DT_API_TOKEN, GITHUB_TOKEN, …).
    const marker = '/tmp/dashcd-fsmonitor-ran-';
    project = await createProject(
      {
        'dashboards/one.yaml': 'dashboardMetadata: { name: One, owner: ops }\ntiles: []\n',
        'dashboards/HEAD': 'ref: refs/heads/main\n',
        'dashboards/objects/.keep': '',
        'dashboards/refs/.keep': '',
      },
      { git: true },
    );
    const ran = `${marker}${project.root.split('/').pop() ?? ''}`;
    await project.write('dashboards/config', `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "env > ${ran}; echo"\n`);
    const head = await project.commit('a pull request');
    const result = await runDashcd(['plan', '--output', 'json'], { cwd: project.root, env: { DT_API_TOKEN: 'ci-token-secret' } });
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(ran)).toBe(false);
    // The project's own repository is the one read.
    expect((JSON.parse(result.stdout) as { git: { commit: string; branch: string } }).git).toMatchObject({ commit: head, branch: 'main' });
  });
});
