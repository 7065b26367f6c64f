import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, unusedPort, type CliResult, type Project } from '../helpers/cli.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { CHECKOUT_DASHBOARD as DASHBOARD } from '../helpers/dashboards.js';
import { closeAll } from '../helpers/proxied-target.js';
import { api, dashboardsUrl, startTestServer, type TestServer } from '../helpers/server.js';

let project: Project | undefined;
let server: TestServer | undefined;
let proxy: FaultServer | undefined;
afterEach(async () => {
  await closeAll(proxy, server, project);
  project = server = proxy = undefined;
});

async function inProject(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  project ??= await createProject({ 'dashboards/checkout.yaml': DASHBOARD });
  return runDashcd(argv, { cwd: project.root, env });
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

describe('a live environment newer than this schema', () => {
  it('plans a tile type dashcd does not know as drift to revert, instead of refusing the target', async () => {
    server = await startTestServer();
    const env = { DT_ENV_URL: server.url, DT_API_TOKEN: server.token };
    expect((await inProject(['apply'], env)).code).toBe(0);
    const { dashboards: [stub] } = (await api(dashboardsUrl(server), { token: server.token })).json as { dashboards: { id: string }[] };
    const id = stub?.id ?? '';
    const live = (await api(dashboardsUrl(server, `/${id}`), { token: server.token })).json as { tiles: unknown[] };
    const newer = { ...live, tiles: [...live.tiles, { name: 'Future', tileType: 'SOME_FUTURE_TILE', bounds: { top: 0, left: 304, width: 304, height: 152 }, novel: { deep: [1] } }] };
    proxy = await startFaultServer({ upstream: server.baseUrl });
    proxy.script({ match: { method: 'GET', path: new RegExp(`/dashboards/${id}$`) }, status: 200, body: newer });
    const planned = await inProject(['plan', '--detailed-exitcode'], { ...env, DT_ENV_URL: `${proxy.url}/e/local` });
    expect(planned.code, planned.stderr).toBe(2);
    expect(planned.stdout).toContain('~ update');
    expect(planned.stdout).toContain('- tiles[1]');
  });
});

describe('exit code 4: the target cannot be used, explained in one line', () => {
  it('an unreachable target', async () => {
    const url = `http://127.0.0.1:${await unusedPort()}/e/local`;
    const result = await inProject(['plan'], { DT_ENV_URL: url, DT_API_TOKEN: 'dt0c01.AAAA.BBBB', DASHCD_RETRY_DEADLINE: '300ms' });
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(new RegExp(`^dashcd plan: could not reach ${url}: ECONNREFUSED.*is the target running`));
  });

  it('a target without a token', async () => {
    server = await startTestServer();
    const result = await inProject(['apply', '--target', server.url]);
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd apply: no API token for http:\/\/127\.0\.0\.1:\d+\/e\/local: set DT_API_TOKEN to a token with scopes ReadConfig and WriteConfig$/);
  });

  it('a plan without a token asks only for ReadConfig (a read-only token is enough)', async () => {
    server = await startTestServer();
    const result = await inProject(['plan', '--target', server.url]);
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd plan: no API token for http:\/\/127\.0\.0\.1:\d+\/e\/local: set DT_API_TOKEN to a token with scope ReadConfig$/);
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
    const url = `http://127.0.0.1:${await unusedPort()}/e/local`;
    const result = await inProject(['plan', '--target', server.url], { DT_ENV_URL: url, DT_API_TOKEN: server.token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Plan for ${server.url}`);
  });

  it('DYNATRACE_ENV_URL and DYNATRACE_API_TOKEN work as aliases, alone or mixed with DT_*', async () => {
    server = await startTestServer();
    const aliases = await inProject(['plan'], { DYNATRACE_ENV_URL: server.url, DYNATRACE_API_TOKEN: server.token });
    expect(aliases.code, aliases.stderr).toBe(0);
    expect(aliases.stdout).toContain(`Plan for ${server.url}`);
    const mixed = await inProject(['plan'], { DT_ENV_URL: server.url, DYNATRACE_API_TOKEN: server.token });
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(mixed.stdout).toContain(`Plan for ${server.url}`);
  });

  it('DT_ENV_URL and DT_API_TOKEN win over their DYNATRACE_* aliases when both are set', async () => {
    server = await startTestServer();
    const unreachable = `http://127.0.0.1:${await unusedPort()}/e/local`;
    const bogus = 'dt0c01.ZZZZZZZZZZZZZZZZZZZZZZZZ.ZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ';
    const env = { DT_ENV_URL: server.url, DYNATRACE_ENV_URL: unreachable, DT_API_TOKEN: server.token, DYNATRACE_API_TOKEN: bogus, DASHCD_RETRY_DEADLINE: '300ms' };
    const result = await inProject(['plan'], env);
    // The alias URL is unreachable (exit 4) and the alias token unknown (401, exit 4): only DT_* gives exit 0.
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Plan for ${server.url}`);
  });

  it('an empty DT_ENV_URL or DT_API_TOKEN counts as unset, so the DYNATRACE_* alias is used', async () => {
    server = await startTestServer();
    const result = await inProject(['plan'], { DT_ENV_URL: '', DYNATRACE_ENV_URL: server.url, DT_API_TOKEN: '', DYNATRACE_API_TOKEN: server.token });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Plan for ${server.url}`);
  });

  it('a target that keeps answering 503', async () => {
    proxy = await startFaultServer({ fallback: { status: 503, body: { error: { code: 503, message: 'Service unavailable' } } } });
    const result = await inProject(['plan'], { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: 'x', DASHCD_RETRY_DEADLINE: '300ms' });
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd plan: 503 from GET .*Service unavailable.*retry later/);
    expect(proxy.requests.length).toBeGreaterThan(1);
  });

  it('a URL that is not the API (an HTML page)', async () => {
    proxy = await startFaultServer({ fallback: { status: 200, headers: { 'content-type': 'text/html' }, body: '<html>login</html>' } });
    const result = await inProject(['plan'], { DT_ENV_URL: proxy.url, DT_API_TOKEN: 'x' });
    expect(result.code).toBe(4);
    expect(oneLine(result.stderr)).toMatch(/^dashcd plan: unexpected 200 body from GET .*is the target URL \(--target, DT_ENV_URL or dashcd.yaml\) the environment root\?/);
  });
});
