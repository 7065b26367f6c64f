import { afterEach, describe, expect, it } from 'vitest';
import type { GitInfo } from '../../src/desired/git-info.js';
import { loadFolderState, type DesiredSource } from '../../src/reconcile/desired-state.js';
import { createProject, type Project } from '../helpers/cli.js';

const DASHBOARD = 'dashboardMetadata:\n  name: A\n  owner: team@example.com\ntiles: []\n';

const projects: Project[] = [];
afterEach(async () => Promise.all(projects.splice(0).map((p) => p.cleanup())));

async function commitOf(project: Project, git?: DesiredSource['git']): Promise<GitInfo | undefined> {
  const read = await loadFolderState({ dir: 'dashboards', cwd: project.root, ...(git ? { git } : {}) }, {});
  if (read.kind !== 'loaded') throw new Error(`not loaded: ${JSON.stringify(read.diagnostics)}`);
  return read.state.git;
}

describe('the commit a desired state is read at', () => {
  it('is read from git by default, given by the caller when it knows it, and left unread when the caller reads it later', async () => {
    const project = await createProject({ 'dashboards/a.yaml': DASHBOARD }, { git: true });
    projects.push(project);
    const head = (await project.git('rev-parse', 'HEAD')).trim();
    expect(await commitOf(project)).toMatchObject({ commit: head, branch: 'main', dirty: false });
    const known: GitInfo = { commit: 'c'.repeat(40), shortCommit: 'ccccccc', dirty: false };
    expect(await commitOf(project, known)).toEqual(known);
    // The daemon's passes: git is not asked (no process forked) before the writes; the daemon reads it after them.
    expect(await commitOf(project, 'unread')).toBeUndefined();
  });
});
