import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, runDashcdChild, startDashcdChild, type CliResult, type DashcdChild, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const DASHBOARD = `dashboardMetadata:
  name: Checkout
  owner: shop@example.com
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: "Checkout funnel"
`;

let project: Project | undefined;
let server: TestServer | undefined;
let child: DashcdChild | undefined;
afterEach(async () => {
  await child?.stop();
  await server?.close();
  await project?.cleanup();
  project = server = child = undefined;
});

async function inProject(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  project ??= await createProject({ 'dashboards/checkout.yaml': DASHBOARD });
  return runDashcd(argv, { cwd: project.root, env });
}

/** A port on 127.0.0.1 that was free a moment ago and nobody listens on now. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

function oneLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  return lines[0] ?? '';
}

describe('the embedded default target', () => {
  it('keeps its store in .dashcd/ under the current directory, so a second run sees what the first applied', async () => {
    const applied = await inProject(['apply']);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('Plan for embedded store');
    expect(applied.stdout).toContain('1 created');
    expect(existsSync(join(project?.root ?? '', '.dashcd'))).toBe(true);

    const planned = await inProject(['plan', '--detailed-exitcode']);
    expect(planned.code).toBe(0);
    expect(planned.stdout).toContain('1 unchanged');
  });

  it('--data chooses another store folder', async () => {
    expect((await inProject(['apply', '--data', 'elsewhere'])).code).toBe(0);
    expect(existsSync(join(project?.root ?? '', 'elsewhere'))).toBe(true);
    expect((await inProject(['plan', '--detailed-exitcode'])).code).toBe(2);
  });
});

describe('exit code 4: the target cannot be used, explained in one line', () => {
  it('an unreachable target', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/e/local`;
    const result = await inProject(['plan'], { DT_ENV_URL: url, DT_API_TOKEN: 'dt0c01.AAAA.BBBB', DASHCD_RETRY_DEADLINE: '300ms' });
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(new RegExp(`^dashcd plan: could not reach ${url}: ECONNREFUSED.*is the target running`));
  });

  it('a target without a token', async () => {
    server = await startTestServer();
    const result = await inProject(['apply', '--target', server.url]);
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd apply: no API token for http:\/\/127\.0\.0\.1:\d+\/e\/local: set DT_API_TOKEN/);
  });

  it('a token the target does not know (401)', async () => {
    server = await startTestServer();
    const bogus = 'dt0c01.ZZZZZZZZZZZZZZZZZZZZZZZZ.ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ';
    const result = await inProject(['plan'], { DT_ENV_URL: server.url, DT_API_TOKEN: bogus });
    expect(result.code).toBe(4);
    const line = oneLine(result.stderr);
    expect(line).toMatch(/^dashcd plan: 401 from .*token rejected.*check DT_API_TOKEN/);
    expect(line).not.toContain(bogus);
  });

  it('a token without WriteConfig (403): plan works, apply names the missing scope and writes nothing', async () => {
    server = await startTestServer();
    const readOnly = server.tokenFor(['ReadConfig']);
    const env = { DT_ENV_URL: server.url, DT_API_TOKEN: readOnly };
    expect((await inProject(['plan'], env)).code).toBe(0);
    const result = await inProject(['apply'], env);
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd apply: 403 from .*WriteConfig/);
    expect(server.server.environments.ids().map((id) => server?.server.environments.get(id)?.dashboards.size)).toEqual([0]);
  });

  it('--target wins over DT_ENV_URL', async () => {
    server = await startTestServer();
    const url = `http://127.0.0.1:${await closedPort()}/e/local`;
    const result = await inProject(['plan', '--target', server.url], { DT_ENV_URL: url, DT_API_TOKEN: server.token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Plan for ${server.url}`);
  });
});

describe('against `dashcd serve` running as a child process', () => {
  it('apply and plan reach it through the owned data dir and with a token over --target', async () => {
    project = await createProject({ 'dashboards/checkout.yaml': DASHBOARD }, { git: true });
    const cwd = project.root;
    child = await startDashcdChild(['serve', '--port', '0'], { cwd, ready: /dashcd serving (http:\/\/\S+\/e\/local)/ });
    const url = /dashcd serving (http:\/\/\S+\/e\/local)/.exec(child.output())?.[1] ?? '';

    // No target: the CLI finds the running owner of .dashcd/ and asks it for a session token.
    const applied = await runDashcdChild(['apply'], { cwd });
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Plan for ${url} at commit`);
    expect(applied.stdout).toContain('1 created');

    const token = (await runDashcdChild(['token', 'create', '--scopes', 'ReadConfig,WriteConfig', '--name', 'ci'], { cwd })).stdout.trim();
    const planned = await runDashcdChild(['plan', '--detailed-exitcode', '--output', 'json'], { cwd, env: { DT_ENV_URL: url, DT_API_TOKEN: token } });
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout).summary).toEqual({ create: 0, update: 0, unchanged: 1, orphan: 0 });

    await project.write('dashboards/checkout.yaml', DASHBOARD.replace('name: Notes', 'name: Funnel notes'));
    const pending = await runDashcdChild(['plan', '--detailed-exitcode'], { cwd, env: { DT_ENV_URL: url, DT_API_TOKEN: token } });
    expect(pending.code).toBe(2);
    expect(pending.stdout).toContain('~ tiles[0].name: "Notes" → "Funnel notes"');
    expect(await child.stop()).toBe(0);
  });
});
