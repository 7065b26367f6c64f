import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcdChild, startDashcdChild, unusedPort, type DashcdChild, type Project } from '../helpers/cli.js';
import { CHECKOUT_DASHBOARD as DASHBOARD } from '../helpers/dashboards.js';
import { closeAll } from '../helpers/proxied-target.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

// Child processes take about a second each to start: these tests cover what only a real process shows (exit codes
// through process.exitCode, the owner's session token, `serve` as its own process); the rest runs in-process.

let project: Project | undefined;
let server: TestServer | undefined;
let child: DashcdChild | undefined;
afterEach(async () => {
  await closeAll(child, server, project);
  project = server = child = undefined;
});

describe('the built CLI as a child process (node dist/bundle/main.js)', () => {
  it('exits 2 with changes pending, 0 once applied, 4 when the target is unreachable', async () => {
    server = await startTestServer();
    project = await createProject({ 'dashboards/checkout.yaml': DASHBOARD });
    const cwd = project.root;
    const env = { DT_ENV_URL: server.url, DT_API_TOKEN: server.token };
    expect((await runDashcdChild(['plan', '--detailed-exitcode'], { cwd, env })).code).toBe(2);
    const applied = await runDashcdChild(['apply'], { cwd, env });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('1 created');
    const unreachable = { DT_ENV_URL: `http://127.0.0.1:${await unusedPort()}`, DT_API_TOKEN: 'x', DASHCD_RETRY_DEADLINE: '200ms' };
    const failed = await runDashcdChild(['plan'], { cwd, env: unreachable });
    expect(failed.code).toBe(4);
    expect(failed.stderr).toContain('ECONNREFUSED');
  });
});

describe('against `dashcd serve` running as a child process', () => {
  it('apply reaches it through the owned data dir, plan with a token over DT_ENV_URL', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': DASHBOARD }, { git: true });
    const cwd = project.root;
    const ready = /dashcd serving (http:\/\/\S+\/e\/local)/;
    child = await startDashcdChild(['serve', '--port', '0'], { cwd, ready });
    const url = ready.exec(child.output())?.[1] ?? '';

    // No target: the CLI finds the running owner of .dashcd/ and asks it for a session token.
    const applied = await runDashcdChild(['apply'], { cwd });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Plan for ${url} at commit`);
    expect(applied.stdout).toContain('1 created');

    const token = (await runDashcdChild(['token', 'create', '--scopes', 'ReadConfig,WriteConfig', '--name', 'ci'], { cwd })).stdout.trim();
    await project.write('dashboards/checkout.yaml', DASHBOARD.replace('name: Notes', 'name: Funnel notes'));
    const pending = await runDashcdChild(['plan', '--detailed-exitcode'], { cwd, env: { DT_ENV_URL: url, DT_API_TOKEN: token } });
    expect(pending.code, pending.stderr).toBe(2);
    expect(pending.stdout).toContain('~ update  Checkout  (dashboards/checkout.yaml)\n    ~ tiles[0].name: "Notes" → "Funnel notes"\n');
    expect(await child.stop()).toBe(0);
  });
});
