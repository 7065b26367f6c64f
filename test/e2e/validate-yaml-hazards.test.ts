import { afterEach, describe, expect, it } from 'vitest';
import { checkDashboardSource } from '../../src/desired/check-file.js';
import { fastParseYaml } from '../../src/desired/fast-yaml/fast-parse.js';
import { createProject, runDashcd, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const VALID = markdownDashboard({ name: 'Valid', owner: 'me@example.com', markdown: 'hi' });

// Line 2 col 9: `*nope`.
const UNDEFINED_ALIAS = 'dashboardMetadata:\n  name: *nope\n  owner: me\ntiles: []\n';
// Line 4 col 9: `*meta`, inside the mapping `&meta` names.
const SELF_ALIAS = 'dashboardMetadata: &meta\n  name: A\n  owner: me\n  self: *meta\ntiles: []\n';

/** Twelve levels of nine aliases each: 9^11 values if expanded. Line 2 col 10 is the first alias. */
function aliasBomb(): string {
  const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 12; i++) levels.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `x:\n  ${levels.join('\n  ')}\ndashboardMetadata:\n  name: Bomb\n  owner: me\ntiles: []\n`;
}

const DEEP_FLOW = `dashboardMetadata:\n  name: Deep\n  owner: me\n  x: ${'['.repeat(10_000)}${']'.repeat(10_000)}\ntiles: []\n`;
// 70 levels: within what yaml reads, beyond what a target accepts. `x` (col 6) is depth 3: col 68 is depth 65.
const TOO_DEEP_FOR_TARGET = `dashboardMetadata:\n  name: Deep\n  owner: me\n  x: ${'['.repeat(70)}${']'.repeat(70)}\ntiles: []\n`;

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function run(command: string, files: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  project = await createProject({ 'dashboards/ok.yaml': VALID, 'dashboards/zz-also-broken.yaml': 'dashboardMetadata: [\n', ...files });
  return runDashcd([command], { cwd: project.root, env: {} });
}

/** Every hazard is a diagnostic of its own file, and the other files are still checked (zz-also-broken sorts last). */
function expectDiagnostic(result: { code: number; stdout: string; stderr: string }, where: RegExp, message: RegExp): void {
  expect(result.code, result.stdout + result.stderr).toBe(3);
  expect(result.stderr).not.toMatch(/unexpected error|stack size/i);
  const lines = result.stdout.trimEnd().split('\n');
  expect(lines.find((l) => where.test(l)), result.stdout).toMatch(message);
  expect(lines.some((l) => l.startsWith('dashboards/zz-also-broken.yaml:')), result.stdout).toBe(true);
}

describe('YAML hazards are diagnostics at file:line:col, exit 3, with every other file still checked', () => {
  it('an alias without an anchor', async () => {
    const result = await run('validate', { 'dashboards/alias.yaml': UNDEFINED_ALIAS });
    expectDiagnostic(result, /^dashboards\/alias\.yaml:2:9 {2}/, /alias \*nope has no anchor &nope before it/);
  });

  it('an alias inside the node its anchor names, in validate and in apply (which never starts writing)', async () => {
    const validated = await run('validate', { 'dashboards/self.yaml': SELF_ALIAS });
    expectDiagnostic(validated, /^dashboards\/self\.yaml:4:9 {2}/, /alias \*meta is inside the node its anchor &meta names/);
    await project?.cleanup();
    const applied = await run('apply', { 'dashboards/self.yaml': SELF_ALIAS });
    expectDiagnostic(applied, /^dashboards\/self\.yaml:4:9 {2}/, /would contain itself/);
  });

  it('an alias bomb', async () => {
    const result = await run('validate', { 'dashboards/bomb.yaml': aliasBomb() });
    expectDiagnostic(result, /^dashboards\/bomb\.yaml:3:\d+ {2}/, /aliases expand to too many values/);
  });

  it('a flow collection nested 10,000 deep', async () => {
    const result = await run('validate', { 'dashboards/deep.yaml': DEEP_FLOW });
    expectDiagnostic(result, /^dashboards\/deep\.yaml:4:\d+ {2}/, /nested too deeply to read .*at most 64/);
  });

  it('an integer with more digits than a number keeps, in a classic JSON file and in a notebook, never rounded on the way', async () => {
    const classic = JSON.stringify({ dashboardMetadata: { name: 'Big', owner: 'me' }, tiles: [] }).replace('"owner":"me"', '"owner":"me","ts":1702373595732123456');
    const notebook = 'document: { kind: notebook, name: Big }\nversion: "7"\nsections:\n  - id: a\n    type: markdown\n    markdown: x\n    at: 1702373595732123456\n';
    const result = await run('validate', { 'dashboards/big.json': classic, 'dashboards/nb.yaml': notebook });
    const at = classic.indexOf('1702373595732123456') + 1;
    expectDiagnostic(result, new RegExp(`^dashboards/big\\.json:1:${at} {2}`), /1702373595732123456 has more digits than dashcd keeps in a number .*it would be sent as 1702373595732123400/);
    expect(result.stdout).toMatch(/^dashboards\/nb\.yaml:7:9 {2}1702373595732123456 has more digits/m);
    // 123456789012345680000 is more than 2^53 and still reaches the API as written.
    const fine = await run('validate', { 'dashboards/big.json': classic.replace('1702373595732123456', '123456789012345680000'), 'dashboards/zz-also-broken.yaml': VALID });
    expect(fine.code, fine.stdout + fine.stderr).toBe(0);
  });

  it('a value nested deeper than a target accepts, at the first container too deep', async () => {
    const result = await run('validate', { 'dashboards/deep.yaml': TOO_DEEP_FOR_TARGET });
    expectDiagnostic(result, /^dashboards\/deep\.yaml:4:68 {2}dashboardMetadata\.x\[0\]/, /nested deeper than a target accepts \(64 levels/);
  });
});

describe('the fast path and flow-mapping keys that begin with an indicator', () => {
  it.each([['{? a: 1, name: B, owner: me}'], ['{- a: 1, name: B, owner: me}'], ['{name: B, owner: me, ? a}'], ['{name: B, owner: me, : a}']])(
    'leaves %j to yaml, which decides the key',
    (metadata) => {
      const source = `dashboardMetadata: ${metadata}\ntiles: []\n`;
      expect(fastParseYaml(source).ok).toBe(false);
      expect(checkDashboardSource(source)).toEqual(checkDashboardSource(source, { useFastPath: false }));
    },
  );

  it('reads {? a: 1} as the key a, as yaml does', () => {
    const check = checkDashboardSource('dashboardMetadata: {? a: 1, name: B, owner: me}\ntiles: []\n');
    expect(check.ok && Object.keys(check.value.dashboardMetadata as object)).toEqual(['a', 'name', 'owner']);
  });
});
