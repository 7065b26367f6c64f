import { afterEach, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/schema/limits.js';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { closeAll } from '../helpers/proxied-target.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const SMALL = markdownDashboard({ name: 'Small', owner: 'me@example.com', markdown: 'hi' });

/** A valid dashboard whose JSON is about `bytes` long: one markdown tile holding that much text. */
function dashboardOf(bytes: number): string {
  return markdownDashboard({ name: 'Huge', owner: 'me@example.com', markdown: 'x'.repeat(bytes) });
}

let project: Project | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await closeAll(server, project);
  project = server = undefined;
});

describe('a dashboard over the target’s body limit', () => {
  it('fails validate with its file, its size and the limit (exit 3), and the other files are still checked', async () => {
    project = await createProject({ 'dashboards/huge.yaml': dashboardOf(BODY_LIMIT_BYTES), 'dashboards/small.yaml': SMALL, 'dashboards/bad.yaml': 'tiles: 3\n' });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const line = result.stdout.split('\n').find((l) => l.startsWith('dashboards/huge.yaml')) ?? '';
    expect(line).toMatch(/^dashboards\/huge\.yaml:1:1 {2}too large for the target: 1,04[89],[0-9]{3} bytes \(1\.00 MiB\) as the JSON apply sends, over the target's request limit of 1,048,576 bytes \(1\.00 MiB\); split it into smaller dashboards$/);
    expect(result.stdout).toMatch(/^dashboards\/bad\.yaml:1:1 /m);
    expect(result.stdout).not.toContain('small.yaml');
  });

  it('passes validate just under the limit', async () => {
    project = await createProject({ 'dashboards/big.yaml': dashboardOf(BODY_LIMIT_BYTES - 1024) });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code, result.stdout + result.stderr).toBe(0);
  });

  it('fails validate in the one environment whose values make the rendering too large (exit 3)', async () => {
    const config = `environments:\n  dev:\n    values:\n      notes: short\n  prod:\n    values:\n      notes: ${'x'.repeat(BODY_LIMIT_BYTES)}\n`;
    project = await createProject({ 'dashcd.yaml': config, 'dashboards/notes.yaml': markdownDashboard({ name: 'Notes', owner: 'me@example.com', markdown: '"${{ values.notes }}"' }) });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/notes\.yaml:\d+:\d+ {2}\[prod\] too large for the target: 1,04[89],\d{3} bytes /m);
    expect(result.stdout).not.toContain('[dev]');
  });

  it('fails plan with exit 3 before the target is asked anything', async () => {
    server = await startTestServer();
    project = await createProject({ 'dashboards/huge.yaml': dashboardOf(BODY_LIMIT_BYTES + 10), 'dashboards/small.yaml': SMALL });
    const result = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/huge\.yaml:1:1 {2}too large for the target: /m);
  });

  it('makes apply exit 3, writing nothing, when the target’s validator answers 413', async () => {
    // A target with a smaller limit than the one validate knows: only its 413 can tell.
    server = await startTestServer({ bodyLimit: 64 * 1024 });
    project = await createProject({ 'dashboards/big.yaml': dashboardOf(100 * 1024), 'dashboards/small.yaml': SMALL });
    const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain('dashboards/big.yaml  too large for the target (413: Request body larger than 65536 bytes.); split it into smaller dashboards (target validator)');
    expect(result.stderr).toContain('nothing was written');
    const list = await fetch(`${server.url}/api/config/v1/dashboards`, { headers: { authorization: `Api-Token ${server.token}` } });
    expect(((await list.json()) as { dashboards: unknown[] }).dashboards).toEqual([]);
  });
});

describe('a file with more problems than anyone reads', () => {
  it('reports its first hundred and how many more (exit 3), with environments too: 140,000 bad tiles stopped the check (exit 1, a RangeError)', async () => {
    const crash = `dashboardMetadata:\n  name: b\n  owner: a@b.c\ntiles:\n${'- 1\n'.repeat(140_000)}`;
    project = await createProject({ 'dashboards/crash.yaml': crash, 'dashboards/small.yaml': SMALL });
    for (const env of [false, true]) {
      if (env) await project.write('dashcd.yaml', 'environments:\n  dev:\n');
      const result = await runDashcd(['validate'], { cwd: project.root });
      expect(result.code, result.stderr).toBe(3);
      const lines = result.stdout.trim().split('\n');
      expect(lines).toHaveLength(101);
      expect(lines[0]).toMatch(/^dashboards\/crash\.yaml:1:1 {2}(\[dev\] )?tiles\[0\]: Invalid input: expected object, received number$/);
      expect(lines[100]).toMatch(/^dashboards\/crash\.yaml:1:1 {2}(\[dev\] )?and 139,900 more problems in this file, not listed: fix these first$/);
    }
  });
});
