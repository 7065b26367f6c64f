import { existsSync } from 'node:fs';
import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_ENVIRONMENT } from '../../src/schema/ids.js';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { markdownDashboard } from '../helpers/dashboards.js';
import { closeAll } from '../helpers/proxied-target.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const VALID = markdownDashboard({ name: 'Valid', owner: 'me@example.com', markdown: 'hi' });

// Line 5 col 5 is the tile map that lacks `bounds`; line 10 col 39 is the value `wide`.
const BROKEN = `dashboardMetadata:
  name: Broken
  owner: me@example.com
tiles:
  - name: No bounds
    tileType: MARKDOWN
    markdown: hi
  - name: Bad width
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: wide, height: 152 }
    markdown: hi
`;

// Line 2 col 3 is the dashboardMetadata map that lacks `owner`.
const NO_OWNER = `dashboardMetadata:
  name: No owner
tiles: []
`;

const SHARED_ID = '7a7a7a7a-0000-4000-8000-000000000001';

let project: Project | undefined;
let server: TestServer | undefined;
let proxy: FaultServer | undefined;
afterEach(async () => {
  await closeAll(proxy, server, project);
  project = server = proxy = undefined;
});

async function validate(files: Record<string, string>, ...extra: string[]): Promise<CliResult> {
  project = await createProject(files);
  return runDashcd(['validate', ...extra], { cwd: project.root, env: {} });
}

describe('dashcd validate', () => {
  it('accepts valid files (and ignores files that are not yaml, yml or json) with exit 0', async () => {
    const result = await validate({ 'dashboards/a.yaml': VALID, 'dashboards/team/b.yml': VALID.replace('Valid', 'B'), 'dashboards/README.md': '# not a dashboard' });
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('2 dashboards valid');
    // Dashboards found: the other files are not worth a word.
    expect(result.stderr).not.toContain('not read');
  });

  it('plan and apply without a dashboards folder say so (exit 3) and create no data dir for it', async () => {
    project = await createProject({ 'README.md': '# nothing here yet\n' });
    for (const command of ['plan', 'apply']) {
      const result = await runDashcd([command], { cwd: project.root, env: {} });
      expect(result.code, command).toBe(3);
      expect(result.stdout).toContain('dashboards folder not found: dashboards; create it, or point --dir at the folder holding the dashboard files');
      // The folder is not a file with a problem in it.
      expect(result.stderr, command).toBe('✗ 1 problem\n');
    }
    expect(existsSync(join(project.root, '.dashcd'))).toBe(false);
  });

  it('with no dashboard file at all, names the files it does not read (a folder of .bak files is no mystery)', async () => {
    const result = await validate({ 'dashboards/api.bak': 'x', 'dashboards/team/b.txt': 'y', 'dashboards/.hidden': 'z' });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('✓ 0 dashboards valid in 0 files\n  2 files in dashboards are not read: only .yaml, .yml and .json files are dashboards (api.bak, team/b.txt)\n');
  });

  it('reports every problem in every file in one run, at the line and column of the offending node, exit 3', async () => {
    const result = await validate({ 'dashboards/broken.yaml': BROKEN, 'dashboards/other.yaml': NO_OWNER, 'dashboards/ok.yaml': VALID });
    expect(result.code).toBe(3);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines).toContainEqual(expect.stringMatching(/^dashboards\/broken\.yaml:5:5 {2}tiles\[0\]\.bounds: \S/));
    expect(lines).toContainEqual(expect.stringMatching(/^dashboards\/broken\.yaml:10:39 {2}tiles\[1\]\.bounds\.width: \S/));
    expect(lines).toContainEqual(expect.stringMatching(/^dashboards\/other\.yaml:2:3 {2}dashboardMetadata\.owner: \S/));
    expect(result.stderr).toContain('3 problems in 2 files');
  });

  it('reports a YAML syntax error at its line and column', async () => {
    const result = await validate({ 'dashboards/syntax.yaml': 'dashboardMetadata:\n  name: A\n  owner: @x\ntiles: []\n' });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/syntax\.yaml:3:10 {2}.*@/m);
  });

  it('reads a .json file as JSON: a trailing comma YAML would take is refused where JSON stops; the same text as .yaml passes', async () => {
    // It was accepted as YAML: `✓ valid`, and plan created it, where jq and the API's import refuse the file.
    const text = '{"dashboardMetadata": {"name": "x", "owner": "y"},\n "tiles": [],}\n';
    const result = await validate({ 'dashboards/a.json': text, 'dashboards/b.yaml': text });
    expect(result.code).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual(['dashboards/a.json:2:13  not valid JSON: a trailing comma (a .json file is read as JSON, as jq and the API read it; name it .yaml to write YAML)']);
    // Again, with the checks of the first run cached: the same content is refused as .json and taken as .yaml.
    const again = await runDashcd(['validate'], { cwd: (project as Project).root });
    expect(again.stdout).toBe(result.stdout);
  });

  it('reports a duplicate key at the second occurrence', async () => {
    const result = await validate({ 'dashboards/dup.yaml': 'dashboardMetadata:\n  name: A\n  owner: x\n  name: B\ntiles: []\n' });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/dup\.yaml:4:3 {2}.*(duplicate|unique)/im);
  });

  it('reports two files with the same id, naming both', async () => {
    const result = await validate({
      'dashboards/one.yaml': `id: ${SHARED_ID}\n${VALID}`,
      'dashboards/two.yaml': `id: ${SHARED_ID}\n${VALID.replace('Valid', 'Copy')}`,
    });
    expect(result.code).toBe(3);
    const line = result.stdout.split('\n').find((l) => l.includes(SHARED_ID)) ?? '';
    expect(line).toContain('dashboards/one.yaml');
    expect(line).toContain('dashboards/two.yaml');
  });

  it('rejects a file that is not a dashboard with a clear message', async () => {
    const result = await validate({ 'dashboards/list.yaml': '- a\n- b\n', 'dashboards/ok.yaml': VALID });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/list\.yaml:1:1 {2}.+/m);
    expect(result.stdout).not.toContain('ok.yaml');
  });

  it('in GitHub Actions also prints ::error annotations with file, line and col', async () => {
    project = await createProject({ 'dashboards/broken.yaml': BROKEN });
    const result = await runDashcd(['validate'], { cwd: project.root, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^::error file=dashboards\/broken\.yaml,line=10,col=39::tiles\[1\]\.bounds\.width: \S/m);
    expect(result.stdout).toMatch(/^::error file=dashboards\/broken\.yaml,line=5,col=5::tiles\[0\]\.bounds: \S/m);
  });

  it('in GitHub Actions a missing --dir is annotated without file, line or col (no ::error file=nope,line=0,col=0)', async () => {
    project = await createProject({});
    const result = await runDashcd(['validate', '--dir', 'nope'], { cwd: project.root, env: { GITHUB_ACTIONS: 'true' } });
    expect(result.code).toBe(3);
    const annotations = result.stdout.split('\n').filter((l) => l.startsWith('::'));
    expect(annotations).toEqual([expect.stringMatching(/^::error::dashboards folder not found: nope; /)]);
    expect(result.stdout).not.toMatch(/line=0|col=0|file=nope/);
  });

  it('in GitHub Actions a problem without a position names its file but no line or col', async () => {
    server = await startTestServer();
    proxy = await startFaultServer({ upstream: server.baseUrl });
    project = await createProject({ 'dashboards/a.yaml': VALID });
    const violation = { path: 'tiles[0].bounds.width', message: 'must be a multiple of 38', parameterLocation: 'PAYLOAD_BODY', location: null };
    proxy.script({ status: 400, body: { error: { code: 400, message: 'Constraints violated.', constraintViolations: [violation] } }, match: { method: 'POST', path: /\/validator$/ } });
    const env = { GITHUB_ACTIONS: 'true', DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token };
    const result = await runDashcd(['validate', '--remote'], { cwd: project.root, env });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('dashboards/a.yaml  tiles[0].bounds.width: must be a multiple of 38 (target validator)\n');
    expect(result.stdout).toContain('::error file=dashboards/a.yaml::tiles[0].bounds.width: must be a multiple of 38 (target validator)\n');
  });

  it('--dir points at another folder', async () => {
    const result = await validate({ 'ops/dash/broken.yaml': BROKEN }, '--dir', 'ops/dash');
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('ops/dash/broken.yaml:10:39');
  });

  it('checks dashcd.yaml too: a bad ignore pointer is reported as dashcd.yaml:LINE:COL  ignore[0]: …, exit 3', async () => {
    const result = await validate({ 'dashboards/ok.yaml': VALID, 'dashcd.yaml': 'ownershipTag: team\nignore: [tiles/*/bounds, /ok, nope]\n' });
    expect(result.code).toBe(3);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'dashcd.yaml:2:10  ignore[0]: Not a JSON Pointer: must start with "/", as in /tiles/*/bounds',
      'dashcd.yaml:2:31  ignore[2]: Not a JSON Pointer: must start with "/", as in /tiles/*/bounds',
    ]);
    expect(result.stderr).toContain('2 problems in 1 file');
  });

  it('reports an invalid dashcd.yaml alone, as plan does, naming an unknown config key as its path: the files are read as it says', async () => {
    const result = await validate({ 'dashboards/broken.yaml': BROKEN, 'dashcd.yaml': 'ignores: [/x]\n' });
    expect(result.code).toBe(3);
    // What matters is the path, the position and that it names `ignore`, the key meant.
    expect(result.stdout).toMatch(/^dashcd\.yaml:1:1 {2}ignores: unknown key; did you mean ignore\?$/m);
    expect(result.stdout).not.toContain('dashboards/broken.yaml');
    expect(result.stderr).toContain('the dashboard files are checked once dashcd.yaml is valid');
    await writeFile(join(project!.root, 'dashcd.yaml'), 'ignore: [/x]\n');
    const fixed = await runDashcd(['validate'], { cwd: project!.root, env: {} });
    expect([fixed.code, fixed.stdout]).toEqual([3, expect.stringContaining('dashboards/broken.yaml:10:39  tiles[1].bounds.width: ')]);
  });

  it('a saved plan given as a file is named as one: apply takes dashboard files and plans them again', async () => {
    const plan = JSON.stringify({ git: null, target: 'x', changes: [], summary: { create: 0 } });
    for (const file of ['plan.json', 'dashboards/plan.json']) {
      const result = await validate({ 'dashboards/a.yaml': VALID, [file]: plan }, file);
      expect([result.code, result.stdout.trim()]).toEqual([3, `${file}:1:1  a saved plan (plan --output json), not a dashboard: apply takes the dashboard files and plans them again`]);
      await project?.cleanup();
    }
    // Anything else that is no dashboard is told what a dashboard is.
    const other = await validate({ 'dashboards/a.yaml': VALID, 'dashboards/b.json': '{"changes":[]}' }, 'dashboards/b.json');
    expect(other.stdout.trim()).toBe('dashboards/b.json:1:1  not a dashboard: expected a mapping with dashboardMetadata and tiles');
  });

  it('with environments, a file whose alias contains itself is its own problem at its place, and a file past 4 MiB is named by its size unread', async () => {
    project = await createProject({
      'dashcd.yaml': 'environments:\n  dev:\n',
      'dashboards/loop.yaml': 'dashboardMetadata:\n  name: X\n  owner: me\ntiles: &t [1, *t]\n',
      'dashboards/ok.yaml': VALID,
      'dashboards/huge.yaml': '',
      'dashboards/over.yaml': '',
    });
    // Sparse: 70 MiB that cost no disk. Such files failed the whole run ("unexpected error", exit 1) without naming them.
    await truncate(join(project.root, 'dashboards/huge.yaml'), 70 * 1024 * 1024);
    // Past the limit by a byte: 32 MB of the worst shape ran the daemon out of memory when files were read to 64 MiB.
    await truncate(join(project.root, 'dashboards/over.yaml'), 4 * 1024 * 1024 + 1);
    const result = await runDashcd(['validate'], { cwd: project.root, env: {} });
    expect(result.code, result.stderr).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual([
      'dashboards/huge.yaml  cannot read the file (70.0 MiB: a file is read up to 4 MiB (a classic dashboard is at most 1 MiB as the JSON apply sends; a larger document is not managed as a file); split it)',
      'dashboards/loop.yaml:4:15  alias *t is inside the node its anchor &t names, so the value would contain itself: write the value out',
      'dashboards/over.yaml  cannot read the file (4.0 MiB: a file is read up to 4 MiB (a classic dashboard is at most 1 MiB as the JSON apply sends; a larger document is not managed as a file); split it)',
    ]);
  });

  it('a dashcd: member without environments is one problem, said once', async () => {
    const result = await validate({ 'dashboards/x.yaml': 'dashboardMetadata:\n  name: X\n  owner: me\ndashcd:\n  environments: [dev]\ntiles: []\n' });
    expect(result.code).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual(['dashboards/x.yaml:5:3  dashcd: environment limits and overrides need environments, declared in dashcd.yaml']);
    expect(result.stderr).toContain('✗ 1 problem in 1 file\n');
  });

  it("warns of dashcd's template in a project without environments, at the first one; another tool's is text", async () => {
    // The plan proposed the markdown `On call: ${{ values.oncall }}` as written, without a word.
    const tile = (markdown: string): string => `dashboardMetadata: { name: X, owner: me }\ntiles:\n  - name: N\n    tileType: MARKDOWN\n    bounds: { top: 0, left: 0, width: 304, height: 152 }\n    markdown: "${markdown}"\n`;
    const result = await validate({ 'dashboards/x.yaml': tile('Run ${{ secrets.X }}; on call: ${{values.oncall}}, ${{ env.name }}'), 'dashboards/y.yaml': tile('${{ dashboard(\\"x.yaml\\") }}'), 'dashboards/z.yaml': tile('${{ github.sha }} ${{ envx }}') });
    expect(result.code, result.stderr).toBe(0);
    const warning = 'warning: a template, but dashcd.yaml declares no environments to give it values: it is applied as the text it is; declare environments (docs/environments.md) or write the value itself';
    expect(result.stdout.trim().split('\n')).toEqual([`dashboards/x.yaml:6:47  ${warning}`, `dashboards/y.yaml:6:16  ${warning}`]);
    expect((await runDashcd(['validate', '--strict'], { cwd: project!.root, env: {} })).code).toBe(3);
  });

  it('an environment misspelt in dashcd.yaml is its one problem: templated files are not checked as if there were no environments', async () => {
    const dashcdYaml = 'values:\n  zone: null\nenvironments:\n  dev:\n  prod:\n    target: https://abc123.live.dynatrace.com\n    tokenenv: PROD_TOKEN\n';
    const file = 'dashboardMetadata:\n  name: Checkout (${{ env.name }})\n  owner: me\n  dashboardFilter:\n    managementZone: ${{ values.zone }}\ndashcd:\n  environments: [dev]\ntiles: []\n';
    const result = await validate({ 'dashboards/checkout.yaml': file, 'dashcd.yaml': dashcdYaml });
    expect(result.code).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual([
      'dashcd.yaml:6:5  environments.prod.tokenEnv: an environment with a target needs tokenEnv: the name of the variable that holds its token',
      'dashcd.yaml:7:5  environments.prod.tokenenv: unknown key; did you mean tokenEnv?',
    ]);
  });

  it('--remote asks the target validator about every dashboard', async () => {
    server = await startTestServer();
    proxy = await startFaultServer({ upstream: server.baseUrl });
    project = await createProject({ 'dashboards/a.yaml': VALID, 'dashboards/b.yaml': VALID.replace('Valid', 'B') });
    const result = await runDashcd(['validate', '--remote'], { cwd: project.root, env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token } });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/validator'))).toHaveLength(2);
  });
});

describe('apply with an invalid desired state', () => {
  it('writes nothing at all and exits 3 with file:line:col', async () => {
    server = await startTestServer();
    proxy = await startFaultServer({ upstream: server.baseUrl });
    project = await createProject({ 'dashboards/ok.yaml': VALID, 'dashboards/broken.yaml': BROKEN });
    const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token } });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('dashboards/broken.yaml:10:39  tiles[1].bounds.width: ');
    expect(proxy.requests.filter((r) => r.method !== 'GET')).toEqual([]);
    expect(server.server.environments.get(DEFAULT_ENVIRONMENT)?.dashboards.size).toBe(0);
  });

  it("writes nothing and exits 3 when the target's validator rejects a dashboard the local schema accepts", async () => {
    server = await startTestServer();
    proxy = await startFaultServer({ upstream: server.baseUrl });
    project = await createProject({ 'dashboards/a.yaml': VALID, 'dashboards/b.yaml': VALID.replace('Valid', 'B') });
    const violation = { path: 'tiles[0].bounds.width', message: 'must be a multiple of 38', parameterLocation: 'PAYLOAD_BODY', location: null };
    proxy.script({ status: 400, body: { error: { code: 400, message: 'Constraints violated.', constraintViolations: [violation] } }, match: { method: 'POST', path: /\/validator$/ } });
    const result = await runDashcd(['apply'], { cwd: project.root, env: { DT_ENV_URL: `${proxy.url}/e/local`, DT_API_TOKEN: server.token } });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashboards\/[ab]\.yaml {2}tiles\[0\]\.bounds\.width: must be a multiple of 38 \(target validator\)$/m);
    expect(result.stderr).toContain('the target rejected 1 dashboard(s); nothing was written');
    expect(proxy.requests.filter((r) => r.method === 'PUT')).toEqual([]);
  });

  it('plan exits 3 the same way, also with --detailed-exitcode', async () => {
    project = await createProject({ 'dashboards/broken.yaml': BROKEN });
    server = await startTestServer();
    const result = await runDashcd(['plan', '--detailed-exitcode'], { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('dashboards/broken.yaml:5:5  tiles[0].bounds: ');
  });

  it('an invalid dashcd.yaml stops plan with its line and column', async () => {
    project = await createProject({ 'dashboards/ok.yaml': VALID, 'dashcd.yaml': 'ignore:\n  - /tiles/*/bounds\nmaxDelete: many\n' });
    server = await startTestServer();
    const result = await runDashcd(['plan'], { cwd: project.root, env: { DT_ENV_URL: server.url, DT_API_TOKEN: server.token } });
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/^dashcd\.yaml:3:12 {2}maxDelete: \S/m);
  });
});
