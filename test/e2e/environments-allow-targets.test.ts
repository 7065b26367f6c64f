import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let project: Project | undefined;
let server: TestServer | undefined;
let recorder: { server: Server; url: string; seen: string[] } | undefined;
afterEach(async () => {
  await project?.cleanup();
  await server?.close();
  if (recorder) await new Promise((resolve) => recorder?.server.close(resolve));
  project = server = recorder = undefined;
});

const HOSTS = 'dashboardMetadata:\n  name: Hosts\n  owner: ops@example.com\ntiles: []\n';

/**
 * A host a pull request's author controls: it records the authorization of every request carrying the job's GitHub
 * token (only those: a client of another test, still retrying a port this host now has, is no leak).
 */
async function startRecorder(): Promise<NonNullable<typeof recorder>> {
  const seen: string[] = [];
  const http = createServer((req, res) => {
    const authorization = req.headers.authorization ?? '';
    if (authorization.includes('ghs_secret')) seen.push(authorization);
    res.end('{}');
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  recorder = { server: http, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/e/x`, seen };
  return recorder;
}

describe('DASHCD_ALLOW_TARGETS: the target tokens a CI job grants a repository it does not trust', () => {
  it("refuses an environment sending the job's GitHub token to the author's host: exit 4, no request made", async () => {
    const sink = await startRecorder();
    project = await createProject({ 'dashcd.yaml': `environments:\n  prod:\n    target: ${sink.url}\n    tokenEnv: GH_TOKEN\n`, 'dashboards/hosts.yaml': HOSTS });
    const env = { GH_TOKEN: 'ghs_secret', DASHCD_ALLOW_TARGETS: 'PROD_DT_TOKEN=https://abc123.live.dynatrace.com' };
    const result = await runDashcd(['plan', '--env', 'prod'], { cwd: project.root, env });
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(
      `environment 'prod': the operator has not allowed GH_TOKEN to be sent to ${sink.url} (DASHCD_ALLOW_TARGETS): add the pair to DASHCD_ALLOW_TARGETS if it is meant (nothing was sent)`,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain('ghs_secret');
    expect(sink.seen).toEqual([]);
  });

  it('lets a granted pair through, among others on several lines, and without the variable dashcd.yaml is trusted as before', async () => {
    server = await startTestServer();
    const target = `${server.baseUrl}/e/local`;
    project = await createProject({ 'dashcd.yaml': `environments:\n  prod:\n    target: ${target}/\n    tokenEnv: PROD_DT_TOKEN\n`, 'dashboards/hosts.yaml': HOSTS });
    const granted = await runDashcd(['plan', '--env', 'prod'], { cwd: project.root, env: { PROD_DT_TOKEN: server.token, DASHCD_ALLOW_TARGETS: `OTHER=https://x.example\n  PROD_DT_TOKEN=${target}\n` } });
    expect(granted.code, granted.stdout + granted.stderr).toBe(0);
    expect(granted.stdout).toContain('+ create');
    const trusted = await runDashcd(['plan', '--env', 'prod'], { cwd: project.root, env: { PROD_DT_TOKEN: server.token } });
    expect(trusted.code, trusted.stdout + trusted.stderr).toBe(0);
  });

  it('a malformed grant is a usage error naming the variable (exit 64)', async () => {
    project = await createProject({ 'dashcd.yaml': 'environments:\n  prod:\n    target: https://abc123.live.dynatrace.com\n    tokenEnv: PROD_DT_TOKEN\n', 'dashboards/hosts.yaml': HOSTS });
    const result = await runDashcd(['plan', '--env', 'prod'], { cwd: project.root, env: { PROD_DT_TOKEN: 't', DASHCD_ALLOW_TARGETS: 'DASHCD_GIT_TOKEN=https://abc123.live.dynatrace.com' } });
    expect(result.code).toBe(64);
    expect(result.stderr).toContain("DASHCD_ALLOW_TARGETS DASHCD_GIT_TOKEN: dashcd's own DASHCD_* variables can never be target tokens");
  });

  it('a malformed grant is refused in a project with no remote target too (a CI job passed until its first target came)', async () => {
    const projects: Record<string, string>[] = [{ 'dashcd.yaml': 'environments:\n  dev:\n' }, {}];
    for (const files of projects) {
      project = await createProject({ ...files, 'dashboards/hosts.yaml': HOSTS });
      for (const command of ['plan', 'validate']) {
        const result = await runDashcd([command], { cwd: project.root, env: { DASHCD_ALLOW_TARGETS: 'DASHCD_GIT_TOKEN=https://a.example' } });
        expect(result.code, `${command} ${JSON.stringify(files)}`).toBe(64);
        expect(result.stderr).toContain("DASHCD_ALLOW_TARGETS DASHCD_GIT_TOKEN: dashcd's own DASHCD_* variables can never be target tokens");
      }
      await project.cleanup();
    }
    project = undefined;
  });
});
