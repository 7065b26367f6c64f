import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireOwnership, type Ownership } from '../../src/server/data-dir.js';
import { createProject, runDashcdChild, startDashcdChild, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const FILES = {
  'dashboards/a.yaml': markdownDashboard({ name: 'A', owner: 'me@example.com', markdown: 'a' }),
  'dashboards/b.yaml': markdownDashboard({ name: 'B', owner: 'me@example.com', markdown: 'b' }),
};

let project: Project | undefined;
let ownership: Ownership | undefined;
afterEach(async () => {
  await ownership?.release();
  await project?.cleanup();
  project = ownership = undefined;
});

describe('two commands on one embedded store at once', () => {
  it('both succeed, one after the other, however their starts interleave (three rounds of apply + plan started together)', async () => {
    project = await createProject(FILES);
    const cwd = project.root;
    for (let round = 0; round < 3; round++) {
      const [apply, plan] = await Promise.all([runDashcdChild(['apply'], { cwd }), runDashcdChild(['plan'], { cwd })]);
      expect(apply.code, `round ${round} apply: ${apply.stderr}`).toBe(0);
      expect(plan.code, `round ${round} plan: ${plan.stderr}`).toBe(0);
    }
    const settled = await runDashcdChild(['plan', '--detailed-exitcode'], { cwd });
    expect(settled.code, settled.stderr).toBe(0);
  });

  it('never goes through another command’s in-process server: it waits for that command to finish, then runs', async () => {
    project = await createProject(FILES);
    const dataDir = join(project.root, '.dashcd');
    // What a running `plan` leaves in owner.json: a published URL, but a server that ends with the plan.
    ownership = await acquireOwnership(dataDir, { lasting: false });
    await ownership.publish('http://127.0.0.1:9');
    // The waiting command says so once; the owner then finishes and the command runs against the store itself.
    const waiting = await startDashcdChild(['apply'], { cwd: project.root, ready: /waiting for it/ });
    const exited = new Promise<number | null>((resolve) => waiting.process.once('exit', resolve));
    await ownership.release();
    expect(await exited, waiting.output()).toBe(0);
    expect(waiting.output()).toContain(`data dir in use by dashcd pid ${process.pid} (another command); waiting for it`);
    expect(waiting.output()).toContain('2 created');
  });
});
