import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { hostsTemplate } from '../helpers/environments.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let project: Project | undefined;
let server: TestServer | undefined;
let proxy: FaultServer | undefined;
afterEach(async () => {
  await project?.cleanup();
  await proxy?.close();
  await server?.close();
  project = undefined;
  proxy = undefined;
  server = undefined;
});

const HOSTS = hostsTemplate();

/** prod's override adds a tile with a misspelt key: unknown only in the dashboard prod gets. */
const TYPO_IN_PROD = `${HOSTS}dashcd:
  overrides:
    prod:
      tiles:
        - name: Budget
          tileType: MARKDOWN
          bounds: { top: 0, left: 304, width: 304, height: 152 }
          markdown: budget
          markdwon: typo
`;

const EMBEDDED = 'values:\n  note: notes\nenvironments:\n  dev:\n  prod:\n';

describe('validate with environments', () => {
  it('sums up what is valid by kind, environments with the same kinds together, and counts the named files alone', async () => {
    // It said "(dashboards: dev 2, prod 2) from 3 files" of a dashboard and a notebook, and of one named file.
    const notebook = 'document:\n  kind: notebook\n  name: Runbook ${{ env.name }}\nversion: "7"\nsections:\n  - id: intro\n    type: markdown\n    markdown: "# ${{ values.note }}"\n';
    const limited = `${HOSTS.replace('name: Hosts', 'name: Dev hosts')}dashcd:\n  environments: [dev]\n`;
    project = await createProject({ 'dashcd.yaml': EMBEDDED, 'dashboards/hosts.yaml': HOSTS, 'dashboards/runbook.yaml': notebook, 'dashboards/dev.yaml': limited });
    const all = await runDashcd(['validate'], { cwd: project.root });
    expect(all.code, all.stdout).toBe(0);
    expect(all.stderr).toBe('✓ valid in 2 environments (dev: 2 dashboards and 1 notebook; prod: 1 dashboard and 1 notebook) from 3 files\n');
    const named = await runDashcd(['validate', 'dashboards/runbook.yaml'], { cwd: project.root });
    expect(named.stderr).toBe('✓ valid in 2 environments (dev, prod: 1 notebook) from 1 file\n');
  });

  it('a duplicate id in every environment is one problem naming them all, as other problems are', async () => {
    // Its message named the environment, so each environment printed a line of its own.
    const file = 'id: 6a1d2c3e-0000-4000-8000-000000000001\ndashboardMetadata: { name: A, owner: ops }\ntiles: []\n';
    project = await createProject({ 'dashcd.yaml': EMBEDDED, 'dashboards/a.yaml': file, 'dashboards/b.yaml': file });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(result.stdout.split('\n')[0]).toBe('dashboards/b.yaml:1:5  [dev, prod] id: duplicate dashboard id 6a1d2c3e-0000-4000-8000-000000000001: dashboards/a.yaml has the same id; every dashboard needs its own id');
  });

  it('a template that fails does not hide the file’s other problems (a CI run per problem), nor is it reported twice at its string', async () => {
    project = await createProject({
      'dashcd.yaml': EMBEDDED,
      'dashboards/board.yaml': 'document:\n  kind: dashboard\n  name: Board\nversion: "21"\ntiles:\n  "0": { type: markdwon, content: "${{ values.noet }}" }\nlayouts:\n  "0": { x: 0, y: 2.5, w: 24, h: 2 }\n',
      'dashboards/hosts.yaml': 'dashboardMetadata:\n  name: Hosts\n  owner: ops\ntiles:\n  - name: Notes\n    tileType: MARKDOWN\n    bounds: { top: "0", left: 0, width: 304, height: "${{ values.h }}" }\n    markdown: hi\n',
    });
    const result = await runDashcd(['validate', '--env', 'dev'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(result.stdout.trim().split('\n').filter((line) => line.startsWith('dashboards/')).sort()).toEqual([
      'dashboards/board.yaml:4:10  [dev] version: Invalid input: expected number, received string',
      'dashboards/board.yaml:6:16  [dev] tiles.0.type: unknown value "markdwon"; did you mean markdown?',
      'dashboards/board.yaml:6:36  [dev] tiles.0.content: unknown value values.noet — did you mean note? (known: note)',
      'dashboards/board.yaml:8:19  [dev] layouts.0.y: Invalid input: expected int, received number',
      // The height's string is the failed template's: its "expected number" would only say that again.
      'dashboards/hosts.yaml:7:20  [dev] tiles[0].bounds.top: Invalid input: expected number, received string',
      'dashboards/hosts.yaml:7:55  [dev] tiles[0].bounds.height: unknown value values.h (known: note)',
    ]);
    // Nothing of a file with a failed template is planned.
    const plan = await runDashcd(['plan', '--env', 'dev'], { cwd: project.root });
    expect(plan.code).toBe(3);
  });

  it('holds the templates of one environment’s dashboards to one budget together (a large value in every file, per environment, ran a daemon out of memory)', async () => {
    const files: Record<string, string> = { 'dashcd.yaml': `values:\n  big: "${'Z'.repeat(900_000)}"\nenvironments:\n  dev:\n` };
    for (let i = 0; i < 10; i++) files[`dashboards/f${i}.yaml`] = `dashboardMetadata:\n  name: f${i}\n  owner: o\ntiles:\n  - name: t\n    tileType: MARKDOWN\n    markdown: "\${{ values.big }}"\n    bounds: { top: 0, left: 0, width: 304, height: 152 }\n`;
    project = await createProject(files);
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code).toBe(3);
    const over = result.stdout.split('\n').filter((line) => line.includes("the templates of this environment's dashboards insert more than 8,388,608 characters together"));
    // 9 of 900,000 fit in 8 MiB; the tenth file passes it.
    expect(over).toEqual(['dashboards/f9.yaml:7:16  [dev] tiles[0].markdown: the templates of this environment\'s dashboards insert more than 8,388,608 characters together: a large value used in many files? Use it in fewer, or make it smaller (values.big, set in values at dashcd.yaml:2:8)']);
  });

  it('lists a file’s first hundred warnings and a line for the rest, and past 10,000 problems each file’s first (6,000 files of one problem ran a daemon out of memory)', async () => {
    const tiles = (n: number, member: string): string => Array.from({ length: n }, (_, i) => `  - {name: t${i}, tileType: MARKDOWN, markdown: m, bounds: {top: 0, left: 0, width: 38, height: 38}, ${member}}\n`).join('');
    const files: Record<string, string> = { 'dashcd.yaml': 'environments:\n  dev:\n', 'dashboards/a-warned.yaml': `dashboardMetadata: {name: W, owner: o}\ntiles:\n${tiles(150, 'extra: 1')}` };
    // 101 warning lines, then files of 101 problem lines: the 100th starts past 10,000 and lists its first and a count.
    for (let i = 0; i < 100; i++) files[`dashboards/bad${String(i).padStart(3, '0')}.yaml`] = `dashboardMetadata: {name: B${i}, owner: o}\ntiles:\n${tiles(101, 'configured: 1')}`;
    project = await createProject(files);
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code).toBe(3);
    const lines = result.stdout.trim().split('\n');
    const of = (file: string): string[] => lines.filter((line) => line.startsWith(`dashboards/${file}:`));
    expect(of('a-warned.yaml')).toHaveLength(101);
    expect(of('a-warned.yaml').at(-1)).toMatch(/\[dev\] warning: and 50 more problems in this file, not listed: fix these first$/);
    expect(of('bad000.yaml')).toHaveLength(101);
    expect(of('bad098.yaml')).toHaveLength(101);
    expect(of('bad099.yaml')).toEqual([
      expect.stringMatching(/^dashboards\/bad099.yaml:3:\d+  \[dev\] tiles\[0\]\.configured: /),
      expect.stringMatching(/\[dev\] and 100 more problems in this file, not listed: the folder has over 10,000 problems, so each file lists only its first$/),
    ]);
  });

  it('reads a .json file as JSON around its templates, as without environments', async () => {
    // With dashcd.yaml declaring environments every .json was read as YAML: a trailing comma jq refuses passed.
    const json = (name: string, extra: string): string => `{\n  "dashboardMetadata": { "name": "${name}", "owner": "ops"${extra} },\n  "tiles": []\n}\n`;
    project = await createProject({
      'dashcd.yaml': EMBEDDED.replace('values:\n', 'values:\n  shared: true\n'),
      'dashboards/trailing.json': json('J', ','),
      'dashboards/quoted.json': json('Q ${{ env.name }}', ','),
      'dashboards/whole.json': json('W ${{ env.name }}', ', "shared": "${{ values.shared }}"'),
    });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    const why = 'not valid JSON: a trailing comma (a .json file is read as JSON, as jq and the API read it; name it .yaml to write YAML)';
    expect(result.stdout.trim().split('\n')).toEqual([`dashboards/quoted.json:2:69  ${why}`, `dashboards/trailing.json:2:53  ${why}`]);
    await project.write('dashboards/trailing.json', json('J', ''));
    await project.write('dashboards/quoted.json', json('Q ${{ env.name }}', ''));
    const fixed = await runDashcd(['validate'], { cwd: project.root });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
  });

  it('--remote sends each environment its own rendered dashboards, through its own target with its own token', async () => {
    server = await startTestServer();
    proxy = await startFaultServer({ upstream: server.baseUrl });
    const config = `values:\n  note: notes\nenvironments:\n  dev:\n    target: ${proxy.url}/e/local\n    tokenEnv: DEV_TOKEN\n  prod:\n    target: ${server.baseUrl}/e/local\n    tokenEnv: PROD_TOKEN\n`;
    project = await createProject({ 'dashcd.yaml': config, 'dashboards/hosts.yaml': HOSTS });
    const violation = { path: 'tiles[0].bounds.width', message: 'must be a multiple of 38', parameterLocation: 'PAYLOAD_BODY', location: null };
    proxy.script({ status: 400, body: { error: { code: 400, message: 'Constraints violated.', constraintViolations: [violation] } }, match: { method: 'POST', path: /\/validator$/ } });

    const env = { DEV_TOKEN: server.token, PROD_TOKEN: server.token };
    const result = await runDashcd(['validate', '--remote'], { cwd: project.root, env });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    // Only dev's target objected, and the line says so; prod's went through its own target.
    expect(result.stdout).toContain('dashboards/hosts.yaml  [dev] tiles[0].bounds.width: must be a multiple of 38 (target validator)\n');
    expect(result.stdout).not.toContain('[prod]');
    const sent = proxy.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/validator'));
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0]?.body ?? '{}')).toMatchObject({ dashboardMetadata: { name: 'Hosts dev' }, tiles: [{ markdown: 'notes' }] });

    const valid = await runDashcd(['validate', '--remote', '--env', 'prod'], { cwd: project.root, env });
    expect(valid.code, valid.stdout + valid.stderr).toBe(0);
    const missing = await runDashcd(['validate', '--remote', '--env', 'prod'], { cwd: project.root, env: { DEV_TOKEN: server.token } });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('PROD_TOKEN is not set');
  });

  it('unknown keys of the rendered dashboards are warnings naming the environment; --strict and strict: true make them errors there only', async () => {
    project = await createProject({ 'dashcd.yaml': EMBEDDED, 'dashboards/hosts.yaml': TYPO_IN_PROD });
    const cwd = project.root;
    const lenient = await runDashcd(['validate'], { cwd });
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
    expect(lenient.stdout).toMatch(/^dashboards\/hosts\.yaml:17:21 {2}\[prod\] warning: dashcd\.overrides\.prod\.tiles\[0\]\.markdwon: unknown key; did you mean markdown\?$/m);

    const strict = await runDashcd(['validate', '--strict'], { cwd });
    expect(strict.code).toBe(3);
    expect(strict.stdout).toMatch(/^dashboards\/hosts\.yaml:17:21 {2}\[prod\] dashcd\.overrides\.prod\.tiles\[0\]\.markdwon: unknown key/m);
    expect((await runDashcd(['validate', '--strict', '--env', 'dev'], { cwd })).code).toBe(0);

    // plan and apply hold each environment to it as well: prod is invalid, dev is applied.
    await project.write('dashcd.yaml', `strict: true\n${EMBEDDED}`);
    const applied = await runDashcd(['apply', '--all-envs'], { cwd });
    expect(applied.code, applied.stdout + applied.stderr).toBe(5);
    expect(applied.stdout).toContain('✓ dev: applied');
    expect(applied.stdout).toContain('✗ prod: invalid, nothing written (exit 3)');
  });

  it('a misspelt value under an environment says which name templates use; --strict makes it an error of that environment', async () => {
    const config = 'values:\n  note: notes\nenvironments:\n  dev:\n  prod:\n    values:\n      ntoe: prod notes\n';
    project = await createProject({ 'dashcd.yaml': config, 'dashboards/hosts.yaml': HOSTS });
    const cwd = project.root;
    const lenient = await runDashcd(['validate'], { cwd });
    expect(lenient.code, lenient.stdout + lenient.stderr).toBe(0);
    expect(lenient.stdout).toContain('dashcd.yaml:7:13  [prod] warning: environments.prod.values.ntoe: value ntoe is declared but no dashboard uses it — did you mean note?');
    const strict = await runDashcd(['validate', '--strict'], { cwd });
    expect(strict.code).toBe(3);
    expect(strict.stdout).toContain('dashcd.yaml:7:13  [prod] environments.prod.values.ntoe: value ntoe is declared but no dashboard uses it — did you mean note?');
    expect((await runDashcd(['validate', '--strict', '--env', 'dev'], { cwd })).code).toBe(0);
  });

  it('counts every warning it prints, an unused value of dashcd.yaml\'s own with those of the environments', async () => {
    const config = 'values:\n  note: notes\n  unused: 1\nenvironments:\n  dev:\n  prod:\n    values:\n      ntoe: prod notes\n';
    project = await createProject({ 'dashcd.yaml': config, 'dashboards/hosts.yaml': HOSTS });
    const result = await runDashcd(['validate'], { cwd: project.root });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n').filter((line) => line.includes('warning:'))).toHaveLength(2);
    expect(result.stderr).toMatch(/; 2 warnings \(--strict makes warnings errors\)\n$/);
  });
});


describe('validate with environments: a value used many times', () => {
  it('is one problem at the template that makes the dashboard larger than a target takes, naming the file and its place', async () => {
    const tiles = Array.from({ length: 8 }, (_, i) => `  - name: T${i}\n    tileType: MARKDOWN\n    bounds: { top: ${i * 152}, left: 0, width: 304, height: 152 }\n    markdown: "x\${{ values.big }}"\n`).join('');
    project = await createProject({
      'dashcd.yaml': `environments:\n  dev:\nvalues:\n  big: "${'A'.repeat(200_000)}"\n`,
      'dashboards/amp.yaml': `dashboardMetadata:\n  name: Amp\n  owner: me\ntiles:\n${tiles}`,
    });
    const result = await runDashcd(['validate', '--env', 'dev'], { cwd: project.root });
    expect(result.code).toBe(3);
    // The sixth tile passes 1 MiB: 6 × 200,000 characters.
    expect(result.stdout).toContain('dashboards/amp.yaml:28:17  [dev] tiles[5].markdown: the templates insert more than 1,048,576 characters');
    expect(result.stdout).toContain('(values.big, set in values at dashcd.yaml:4:8)');
    expect(result.stdout).toContain('the templates insert more than 1,048,576 characters into this dashboard');
    expect(result.stdout.match(/templates insert more than/g)).toHaveLength(1);
  });
});

describe('validate with environments: one file that does not parse', () => {
  it('is one problem at its first syntax error; a reference to it and the values only it uses say no more than that', async () => {
    const tile = (name: string, top: number, markdown: string): string => `  - name: ${name}\n    tileType: MARKDOWN\n    bounds: { top: ${top}, left: 0, width: 304, height: 152 }\n    markdown: ${markdown}\n`;
    project = await createProject({
      'dashcd.yaml': 'values:\n  oncall: "#ops"\nenvironments:\n  dev:\n',
      // A stray `[` after tiles: yaml reports ten errors, each from the one before.
      'dashboards/platform/hosts.yaml': `dashboardMetadata:\n  name: Hosts\n  owner: me\ntiles: [\n${tile('Notes', 0, '"on call ${{ values.oncall }}"')}${tile('Two', 152, 'two')}`,
      'dashboards/platform/health.yaml': `dashboardMetadata:\n  name: Health\n  owner: me\ntiles:\n${tile('Link', 0, `'[Hosts](#dashboard;id=\${{ dashboard("hosts.yaml") }})'`)}`,
    });
    const result = await runDashcd(['validate', '--env', 'dev'], { cwd: project.root });
    expect(result.code).toBe(3);
    expect(result.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^dashboards\/platform\/hosts\.yaml:5:3 {2}Block collections are not allowed within flow collections \(and \d+ more YAML errors after it, most likely from this one\)$/),
      'dashboards/platform/health.yaml:8:38  [dev] tiles[0].markdown: dashboard("hosts.yaml"): platform/hosts.yaml could not be read (its own problem is reported), so its id is not known',
    ]);
    expect(result.stderr).not.toContain('declared but no dashboard uses it');
  });
});
