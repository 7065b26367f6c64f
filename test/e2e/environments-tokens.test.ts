import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { startDocumentServer } from '../helpers/documents.js';

let project: Project | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await project?.cleanup();
  await server?.close();
  project = undefined;
  server = undefined;
});

const HOSTS = 'dashboardMetadata:\n  name: Hosts\n  owner: ops@example.com\ntiles: []\n';

/** dev is embedded; prod is a real server whose token comes from PROD_DT_TOKEN. */
async function projectWithProd(): Promise<{ project: Project; server: TestServer }> {
  server = await startTestServer();
  project = await createProject({
    'dashcd.yaml': `environments:\n  dev:\n  prod:\n    target: ${server.baseUrl}/e/local\n    tokenEnv: PROD_DT_TOKEN\n`,
    'dashboards/hosts.yaml': HOSTS,
  });
  return { project, server };
}

describe('an environment whose tokenEnv variable is unset', () => {
  it('plan says the variable is unset, where the target came from, asks only for ReadConfig, and keeps the table\'s columns', async () => {
    const { project, server } = await projectWithProd();
    const result = await runDashcd(['plan'], { cwd: project.root, env: {} });
    expect(result.code).toBe(4);
    const reason = `PROD_DT_TOKEN is not set: prod's target (${server.baseUrl}/e/local, from dashcd.yaml) takes its token from PROD_DT_TOKEN (tokenEnv); set it to a token with scope ReadConfig`;
    const [header, dev, prod] = result.stdout.split('\n').slice(2, 5);
    expect(header).toMatch(/^environment {2}create {2}adopt {2}update {2}delete {2}unchanged {2}orphan$/);
    // Every count column (right-aligned under its heading), then the reason: it widens no column.
    const ends = (line: string, cell: RegExp): number[] => [...line.matchAll(cell)].map((m) => m.index + m[0].length);
    expect(dev).toMatch(/^dev(\s+\d+){6}$/);
    expect(ends(dev ?? '', /\d+/g)).toEqual(ends(header ?? '', /(?<=\s)[a-z]+/g));
    expect(prod).toMatch(/^prod(\s+-){6} {2}not planned: /);
    expect(ends(prod ?? '', /(?<=\s)-(?=\s)/g)).toEqual(ends(header ?? '', /(?<=\s)[a-z]+/g));
    expect(prod?.endsWith(`not planned: ${reason}`)).toBe(true);
    expect(result.stdout).not.toMatch(/unreachable|WriteConfig|DT_ENV_URL/);
  });

  it('apply asks for ReadConfig and WriteConfig', async () => {
    const { project } = await projectWithProd();
    const result = await runDashcd(['apply', '--env', 'prod'], { cwd: project.root, env: {} });
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(/✗ prod: credential missing or refused, nothing written \(exit 4\): PROD_DT_TOKEN is not set: .* set it to a token with scopes ReadConfig and WriteConfig$/m);
  });

  it('a token refused while applying (no WriteConfig): the variable to fix, and no claim that nothing was written', async () => {
    const { project, server } = await projectWithProd();
    const result = await runDashcd(['apply', '--env', 'prod'], { cwd: project.root, env: { PROD_DT_TOKEN: server.tokenFor(['ReadConfig']) } });
    expect(result.code).toBe(4);
    // It said "target unavailable, nothing written": the target was up, and a refusal part way need not be first.
    expect(result.stdout).toMatch(/^✗ prod: credential missing or refused, stopped while applying \(plan again to see what is left\) \(exit 4\): 403 from .*: token is missing scope WriteConfig \(Write configuration\) — put a token with it in PROD_DT_TOKEN$/m);
    expect(result.stdout).not.toMatch(/unavailable|DT_API_TOKEN/);
  });

  it('a rejected token names the environment\'s variable, not DT_API_TOKEN, and says "not planned", not "unreachable"', async () => {
    const { project, server } = await projectWithProd();
    const result = await runDashcd(['plan', '--env', 'prod'], { cwd: project.root, env: { PROD_DT_TOKEN: 'not-the-token' } });
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(`not planned: 401 from ${server.baseUrl}/e/local: token rejected`);
    expect(result.stdout).not.toContain('unreachable');
    expect(result.stdout).toContain('— check PROD_DT_TOKEN');
    expect(result.stdout).not.toContain('DT_API_TOKEN');
  });
});

describe('an environment whose target has no platform for a platform dashboard', () => {
  it('plan says "not planned" and which settings dashcd.yaml lacks, as for a token not given, not "unreachable"', async () => {
    server = await startTestServer();
    project = await createProject({
      'dashcd.yaml': `environments:\n  prod:\n    target: ${server.baseUrl}/e/local\n    tokenEnv: PROD_DT_TOKEN\n`,
      'dashboards/board.yaml': 'document:\n  kind: dashboard\n  name: Board\nversion: 21\ntiles: {}\nlayouts: {}\n',
    });
    const result = await runDashcd(['plan'], { cwd: project.root, env: { PROD_DT_TOKEN: server.token } });
    expect(result.code, result.stderr).toBe(4);
    expect(result.stdout).toContain('not planned: ');
    expect(result.stdout).toContain('has no platform configured for platform dashboards and notebooks: prod in dashcd.yaml has no platform credential: give it platformTokenEnv (or oauthClientIdEnv and oauthClientSecretEnv)');
    expect(result.stdout).not.toContain('unreachable');
  });

  it('names the platform variable dashcd.yaml declares when it is unset, and when its token is rejected (it said DT_PLATFORM_TOKEN, which an environment never reads)', async () => {
    const documents = await startDocumentServer();
    server = documents;
    project = await createProject({
      'dashcd.yaml': `environments:\n  prod:\n    target: ${documents.baseUrl}/e/local\n    tokenEnv: PROD_DT_TOKEN\n    platformTarget: ${documents.baseUrl}/e/local\n    platformTokenEnv: PROD_PLATFORM_TOKEN\n`,
      'dashboards/board.yaml': 'document:\n  kind: dashboard\n  name: Board\nversion: 21\ntiles: {}\nlayouts: {}\n',
    });
    const unset = await runDashcd(['plan'], { cwd: project.root, env: { PROD_DT_TOKEN: documents.token, DT_PLATFORM_TOKEN: await documents.platformToken() } });
    expect(unset.code, unset.stderr).toBe(4);
    expect(unset.stdout).toContain(`not planned: ${documents.baseUrl}/e/local has no platform configured for platform dashboards and notebooks: PROD_PLATFORM_TOKEN is not set: prod's platform (${documents.baseUrl}/e/local, from dashcd.yaml) takes its token from PROD_PLATFORM_TOKEN`);
    expect(unset.stdout).not.toContain('DT_PLATFORM_TOKEN');
    const rejected = await runDashcd(['plan'], { cwd: project.root, env: { PROD_DT_TOKEN: documents.token, PROD_PLATFORM_TOKEN: 'dt0s16.NOTATOKEN.NOTASECRET' } });
    expect(rejected.code, rejected.stderr).toBe(4);
    expect(rejected.stdout).toMatch(/not planned: 401 from .*token rejected/);
    expect(rejected.stdout).toContain('check PROD_PLATFORM_TOKEN');
    expect(rejected.stdout).not.toMatch(/DT_PLATFORM_TOKEN|unreachable/);
  });
});
