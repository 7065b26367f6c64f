import { afterEach, describe, expect, it } from 'vitest';
import { createProject, runDashcd, type CliResult, type Project } from '../helpers/cli.js';
import { markdownDashboard } from '../helpers/dashboards.js';

const VALID = markdownDashboard({ name: 'Valid', owner: 'me@example.com', markdown: 'hi' });

// Misspelled keys at 4:3 (tag), 5:3 (dashbordFilter), 9:5 (tilefilter), 10:32 (widht).
const MISSPELLED_KEYS = `dashboardMetadata:
  name: Typos
  owner: me@example.com
  tag: [team]
  dashbordFilter: { timeframe: today }
tiles:
  - name: Notes
    tileType: MARKDOWN
    tilefilter: {}
    bounds: { top: 0, left: 0, widht: 304, height: 152 }
    markdown: hi
`;

// Values outside closed sets at 4:18 (tilesNameSize), 5:31 (a dynamic filter), 8:15 (tileType), 14:15 (nameSize).
const ENUM_TYPOS = `dashboardMetadata:
  name: Enums
  owner: me@example.com
  tilesNameSize: smal
  dynamicFilters: { filters: [OS_TYP, HOST_TAG_KY:env], genericTagFilters: [] }
tiles:
  - name: Notes
    tileType: MARKDOWM
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: hi
  - name: Head
    tileType: HEADER
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    nameSize: larg
`;

let project: Project | undefined;
afterEach(async () => {
  await project?.cleanup();
  project = undefined;
});

async function run(argv: string[], files: Record<string, string>, env: Record<string, string> = {}): Promise<CliResult> {
  project = await createProject({ 'dashboards/ok.yaml': VALID, ...files });
  return runDashcd(argv, { cwd: project.root, env });
}

describe('misspelled keys', () => {
  it('are warnings at file:line:col with a did-you-mean, and validate still exits 0', async () => {
    const result = await run(['validate'], { 'dashboards/typos.yaml': MISSPELLED_KEYS });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout.trimEnd().split('\n')).toEqual([
      'dashboards/typos.yaml:4:3  warning: dashboardMetadata.tag: unknown key; did you mean tags?',
      'dashboards/typos.yaml:5:3  warning: dashboardMetadata.dashbordFilter: unknown key; did you mean dashboardFilter?',
      'dashboards/typos.yaml:9:5  warning: tiles[0].tilefilter: unknown key; did you mean tileFilter?',
      'dashboards/typos.yaml:10:32  warning: tiles[0].bounds.widht: unknown key; did you mean width?',
    ]);
    expect(result.stderr).toContain('2 dashboards valid in 2 files; 4 warnings (--strict makes warnings errors)');
  });

  it('name the known keys when none is close', async () => {
    const result = await run(['validate'], { 'dashboards/odd.yaml': VALID.replace('width: 304', 'width: 304, depth: 3') });
    expect(result.stdout).toContain('tiles[0].bounds.depth: unknown key (known here: top, left, width, height)');
  });

  it('are GitHub ::warning annotations on their line in Actions', async () => {
    const result = await run(['validate'], { 'dashboards/typos.yaml': MISSPELLED_KEYS }, { GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('::warning file=dashboards/typos.yaml,line=4,col=3::dashboardMetadata.tag: unknown key; did you mean tags?\n');
  });

  it('are errors with --strict: exit 3, ::error annotations', async () => {
    const result = await run(['validate', '--strict'], { 'dashboards/typos.yaml': MISSPELLED_KEYS }, { GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('dashboards/typos.yaml:4:3  dashboardMetadata.tag: unknown key; did you mean tags?\n');
    expect(result.stdout).toContain('::error file=dashboards/typos.yaml,line=10,col=32::tiles[0].bounds.widht: unknown key; did you mean width?\n');
    expect(result.stderr).toContain('4 problems in 1 file');
  });

  it('are errors with strict: true in dashcd.yaml, for plan too, which then writes no plan', async () => {
    const files = { 'dashboards/typos.yaml': MISSPELLED_KEYS, 'dashcd.yaml': 'strict: true\n' };
    const validated = await run(['validate'], files);
    expect(validated.code).toBe(3);
    await project?.cleanup();
    const planned = await run(['plan', '--output', 'json'], files);
    expect(planned.code).toBe(3);
    // Machine output stays JSON: the problems as a document on stdout, their text on stderr, no plan.
    const report = JSON.parse(planned.stdout) as { valid: boolean; diagnostics: { file: string; line: number; col: number; message: string }[] };
    expect(report.valid).toBe(false);
    expect(report.diagnostics).toContainEqual(expect.objectContaining({ file: 'dashboards/typos.yaml', line: 5, col: 3, message: expect.stringContaining('did you mean dashboardFilter?') as unknown }));
    expect(planned.stderr).toContain('dashboards/typos.yaml:5:3  dashboardMetadata.dashbordFilter: unknown key; did you mean dashboardFilter?');
    expect(planned.stdout).not.toContain('"changes"');
  });

  it('are warnings on stderr in plan, so the JSON plan on stdout stays clean', async () => {
    const result = await run(['plan', '--output', 'json'], { 'dashboards/typos.yaml': MISSPELLED_KEYS });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ summary: { create: 2 } });
    expect(result.stderr).toContain('dashboards/typos.yaml:4:3  warning: dashboardMetadata.tag: unknown key; did you mean tags?');
  });
});

describe('values outside a closed set', () => {
  it('are one short line each with the value meant, and the same GitHub annotation', async () => {
    const result = await run(['validate'], { 'dashboards/enums.yaml': ENUM_TYPOS }, { GITHUB_ACTIONS: 'true' });
    expect(result.code).toBe(3);
    const lines = result.stdout.trimEnd().split('\n').filter((l) => !l.startsWith('::'));
    expect(lines).toEqual([
      'dashboards/enums.yaml:4:18  dashboardMetadata.tilesNameSize: unknown value "smal"; did you mean small?',
      'dashboards/enums.yaml:5:31  dashboardMetadata.dynamicFilters.filters[0]: unknown value "OS_TYP"; did you mean OS_TYPE?',
      'dashboards/enums.yaml:5:39  dashboardMetadata.dynamicFilters.filters[1]: unknown value "HOST_TAG_KY:env"; did you mean HOST_TAG_KEY:env?',
      'dashboards/enums.yaml:8:15  tiles[0].tileType: unknown value "MARKDOWM"; did you mean MARKDOWN?',
      'dashboards/enums.yaml:14:15  tiles[1].nameSize: unknown value "larg"; did you mean large?',
    ]);
    expect(result.stdout).toContain('::error file=dashboards/enums.yaml,line=8,col=15::tiles[0].tileType: unknown value "MARKDOWM"; did you mean MARKDOWN?\n');
  });

  it('do not hide the other problems of a tile whose tileType is unknown (a CI run per problem): checked as the type meant', async () => {
    const tile = ENUM_TYPOS.replace('bounds: { top: 0, left: 0, width: 304, height: 152 }\n    markdown: hi', 'bounds: { top: "0", left: 0, width: 304, height: 152 }\n    markdown: 5');
    const result = await run(['validate'], { 'dashboards/enums.yaml': tile });
    expect(result.code).toBe(3);
    expect(result.stdout).toContain(
      [
        'dashboards/enums.yaml:8:15  tiles[0].tileType: unknown value "MARKDOWM"; did you mean MARKDOWN?',
        'dashboards/enums.yaml:9:20  tiles[0].bounds.top: Invalid input: expected number, received string',
        'dashboards/enums.yaml:10:15  tiles[0].markdown: Invalid input: expected string, received number',
      ].join('\n'),
    );
  });

  it('quote a committed value of any length in a short line (a 3.9-million-character tileType was quoted whole)', async () => {
    const result = await run(['validate'], { 'dashboards/enums.yaml': ENUM_TYPOS.replace('MARKDOWM', 'E'.repeat(1_000_000)) });
    expect(result.code).toBe(3);
    const line = result.stdout.split('\n').find((text) => text.includes('tiles[0].tileType')) ?? '';
    expect(line).toMatch(/unknown value "E{119}… \(1,000,002 characters\); `dashcd schema` lists the 50 allowed values$/);
    expect(result.stdout.length).toBeLessThan(5_000);
  });

  it('are counted in full where a file lists its first hundred (a file of 130 said “101 problems”, 101 warnings “101”)', async () => {
    const tiles = (member: string): string => `  - {name: t, tileType: MARKDOWN, bounds: {top: 0, left: 0, width: 1, height: 1}, markdown: m, ${member}}\n`.repeat(130);
    const files = { 'dashboards/bad.yaml': `dashboardMetadata: {name: B, owner: o}\ntiles:\n${tiles('configured: 1')}`, 'dashboards/odd.yaml': `dashboardMetadata: {name: O, owner: o}\ntiles:\n${tiles('configured: true, extra: 1')}` };
    const result = await run(['validate'], files);
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('and 30 more problems in this file, not listed: fix these first');
    expect(result.stderr).toContain('✗ 130 problems in 1 file (and 130 warnings)\n');
  });

  it('list a small set when nothing is close, and point at dashcd schema for a large one', async () => {
    const result = await run(['validate'], { 'dashboards/far.yaml': ENUM_TYPOS.replace('smal', 'huge').replace('MARKDOWM', 'CHART') });
    expect(result.stdout).toContain('dashboardMetadata.tilesNameSize: unknown value "huge"; use one of small, medium, large\n');
    expect(result.stdout).toContain('tiles[0].tileType: unknown value "CHART"; `dashcd schema` lists the 50 allowed values\n');
  });
});
