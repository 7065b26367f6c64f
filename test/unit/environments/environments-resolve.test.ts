import { describe, expect, it } from 'vitest';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { parseProjectConfig } from '../../../src/config/project-config.js';
import { deriveDashboardId } from '../../../src/desired/load-desired.js';
import { formatDiagnostic } from '../../../src/desired/diagnostic.js';
import { declaredEnvironments } from '../../../src/environments/environment.js';
import { flowTemplateMessage, quoteFlowTemplates, unquotedFlowTemplates } from '../../../src/environments/flow-templates.js';
import { parseTemplateFile } from '../../../src/environments/load-templates.js';
import type { EnvironmentDesired } from '../../../src/environments/resolve-environment.js';
import { resolveEnvironments, resolveEnvironmentsInTurns, type ResolveInput, type ResolveResult } from '../../../src/environments/resolve-environments.js';

const CONFIG = `values:
  timeframe: -2h
  height: 152
  unused: 1
environments:
  dev:
  staging:
    values:
      height: tall
  prod:
    values:
      timeframe: -7d
groups:
  production: [prod]
`;

const HOSTS = `dashboardMetadata:
  name: Hosts (\${{ env.name }})
  owner: ops
  dashboardFilter:
    timeframe: \${{ values.timeframe }}
tiles:
  - name: Notes
    tileType: MARKDOWN
    bounds: { top: 0, left: 0, width: 304, height: 152 }
    markdown: 'See [health](#dashboard;id=\${{ dashboard("service.yaml") }})'
  - name: Debug
    tileType: MARKDOWN
    bounds: { top: 0, left: 304, width: 304, height: 152 }
    markdown: debug
dashcd:
  tiles:
    Debug: { environments: [dev] }
  overrides:
    production:
      tiles:
        - name: Error budget
          tileType: MARKDOWN
          bounds: { top: 304, left: 0, width: 304, height: 152 }
          markdown: prod only
        - name: Notes
          bounds: { height: 304 }
`;

const SERVICE = `dashboardMetadata: { name: Service, owner: ops }
tiles:
  - name: Size
    tileType: MARKDOWN
    bounds:
      top: 0
      left: 0
      width: 304
      height: \${{ values.height }}
    markdown: x
dashcd:
  overrides:
    prod:
      id: 6b0f6d3e-0000-4000-8000-0000000000aa
`;

const PROD_ONLY = `dashboardMetadata: { name: Budget, owner: ops }
tiles: []
dashcd:
  environments: [production]
`;

function resolve(files: Record<string, string>, config = CONFIG, names?: string[]): ResolveResult {
  return resolveEnvironments(inputOf(files, config, names));
}

function inputOf(files: Record<string, string>, config = CONFIG, names?: string[]): ResolveInput {
  const { config: parsed, diagnostics } = parseProjectConfig(config, 'dashcd.yaml');
  expect(diagnostics).toEqual([]);
  const declared = declaredEnvironments(parsed);
  const templates = Object.entries(files).map(([name, source]) => {
    const file = parseTemplateFile(source);
    if (!('value' in file)) throw new Error(`${name} does not parse`);
    return { file: `dashboards/${name}`, name, source, value: file.value, ...(file.problems ? { referenceOnly: true as const } : {}) };
  });
  return {
    files: templates,
    project: { file: 'dashcd.yaml', source: config, config: parsed },
    declared,
    selected: names ? declared.filter((e) => names.includes(e.name)) : declared,
    deriveId: deriveDashboardId,
  };
}

const FILES = { 'platform/hosts.yaml': HOSTS, 'platform/service.yaml': SERVICE, 'budget.yaml': PROD_ONLY };
const SERVICE_ID = deriveDashboardId('platform/service.yaml');

/** Resolved in each test, not once for the file: mutation testing then knows which tests reach which code. */
function sample(): { result: ResolveResult; dev?: EnvironmentDesired; staging?: EnvironmentDesired; prod?: EnvironmentDesired } {
  const result = resolve(FILES);
  const [dev, staging, prod] = result.environments;
  return { result, ...(dev ? { dev } : {}), ...(staging ? { staging } : {}), ...(prod ? { prod } : {}) };
}

describe('resolveEnvironments in turns', () => {
  it('lets the event loop in between files (a daemon\'s /healthz went a minute unanswered), with the result of a run at once', async () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`d${i}.yaml`, HOSTS.replace('name: Hosts', `name: Hosts ${i}`)]));
    const order: string[] = [];
    setImmediate(() => order.push('event loop'));
    const inTurns = await resolveEnvironmentsInTurns(inputOf(many)).then((result) => {
      order.push('resolved');
      return result;
    });
    expect(order).toEqual(['event loop', 'resolved']);
    expect(inTurns.environments.map((e) => e.dashboards.length + e.diagnostics.length).every((n) => n >= 300)).toBe(true);
    expect(JSON.stringify(inTurns)).toBe(JSON.stringify(resolve(many)));
  });
});

describe('resolveEnvironments', () => {
  it('gives each environment its own dashboards from the same files', () => {
    const { result, dev } = sample();
    expect(result.diagnostics).toEqual([]);
    expect(dev?.diagnostics).toEqual([]);
    expect(dev?.dashboards.map((d) => [d.file, d.name, d.id])).toEqual([
      ['dashboards/platform/hosts.yaml', 'Hosts (dev)', deriveDashboardId('platform/hosts.yaml')],
      ['dashboards/platform/service.yaml', 'Service', SERVICE_ID],
    ]);
    expect(dev?.dashboards[0]?.body).toEqual({
      dashboardMetadata: { name: 'Hosts (dev)', owner: 'ops', dashboardFilter: { timeframe: '-2h' } },
      tiles: [
        { name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: `See [health](#dashboard;id=${SERVICE_ID})` },
        { name: 'Debug', tileType: 'MARKDOWN', bounds: { top: 0, left: 304, width: 304, height: 152 }, markdown: 'debug' },
      ],
    });
    expect((dev?.dashboards[1]?.body as Dashboard | undefined)?.tiles[0]?.bounds).toEqual({ top: 0, left: 0, width: 304, height: 152 });
  });

  it('applies group overrides with tiles matched by name, drops tiles limited elsewhere, and resolves references per environment', () => {
    const { prod } = sample();
    expect(prod?.diagnostics).toEqual([]);
    expect(prod?.dashboards.map((d) => [d.file, d.id])).toEqual([
      ['dashboards/platform/hosts.yaml', deriveDashboardId('platform/hosts.yaml')],
      ['dashboards/platform/service.yaml', '6b0f6d3e-0000-4000-8000-0000000000aa'],
      ['dashboards/budget.yaml', deriveDashboardId('budget.yaml')],
    ]);
    expect(prod?.dashboards[0]?.body).toEqual({
      dashboardMetadata: { name: 'Hosts (prod)', owner: 'ops', dashboardFilter: { timeframe: '-7d' } },
      tiles: [
        { name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 304 }, markdown: 'See [health](#dashboard;id=6b0f6d3e-0000-4000-8000-0000000000aa)' },
        { name: 'Error budget', tileType: 'MARKDOWN', bounds: { top: 304, left: 0, width: 304, height: 152 }, markdown: 'prod only' },
      ],
    });
  });

  it('fails only the environment whose value is bad, at the template and at the value’s definition', () => {
    const { staging } = sample();
    expect(staging?.dashboards.map((d) => d.file)).toEqual(['dashboards/platform/hosts.yaml']);
    expect(staging?.diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/platform/service.yaml:9:15  [staging] tiles[0].bounds.height: Invalid input: expected number, received string (values.height = "tall", set in environments.staging.values at dashcd.yaml:9:15)',
    ]);
  });

  it('warns about a value no dashboard uses, at its definition', () => {
    const { result } = sample();
    expect(result.warnings.map(formatDiagnostic)).toEqual(['dashcd.yaml:4:11  values.unused: value unused is declared but no dashboard uses it (${{ values.unused }})']);
    // Not without a file to read (a dashboards folder not found): every value read as unused beside that error.
    const none = resolve({});
    expect([...none.warnings, ...none.environments.flatMap((e) => e.warnings)]).toEqual([]);
  });

  it('reports an unknown value in every environment at the template’s own column', () => {
    const bad = resolve({ 'a.yaml': 'dashboardMetadata:\n  name: "A ${{ values.timefame }}"\n  owner: o\ntiles: []\n' }, CONFIG, ['dev', 'prod']);
    expect(bad.environments.flatMap((e) => e.diagnostics.map(formatDiagnostic))).toEqual([
      'dashboards/a.yaml:2:12  [dev] dashboardMetadata.name: unknown value values.timefame — did you mean timeframe? (known: timeframe, height, unused)',
      'dashboards/a.yaml:2:12  [prod] dashboardMetadata.name: unknown value values.timefame — did you mean timeframe? (known: timeframe, height, unused)',
    ]);
  });

  it('points a problem in an override at the override', () => {
    const bad = resolve({ 'a.yaml': 'dashboardMetadata: { name: A, owner: o }\ntiles: []\ndashcd:\n  overrides:\n    prod:\n      tiles:\n        - name: New\n          tileType: MARKDOWN\n          markdown: x\n' }, CONFIG, ['prod']);
    expect(bad.environments[0]?.diagnostics.map(formatDiagnostic)).toEqual(['dashboards/a.yaml:7:11  [prod] dashcd.overrides.prod.tiles[0].bounds: Required']);
  });

  it('refuses names in dashcd: that are neither an environment nor a group, once for all environments', () => {
    const bad = resolve({ 'a.yaml': 'dashboardMetadata: { name: A, owner: o }\ntiles: []\ndashcd:\n  environments: [prd]\n' });
    expect(bad.diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/a.yaml:4:18  dashcd.environments[0]: unknown environment or group prd — did you mean prod? (declared in dashcd.yaml: dev, staging, prod, production)',
    ]);
    expect(bad.environments.map((e) => e.dashboards.length)).toEqual([0, 0, 0]);
  });

  it('refers to a dashboard not deployed in an environment as an error there', () => {
    const bad = resolve({ 'budget.yaml': PROD_ONLY, 'a.yaml': 'dashboardMetadata: { name: A, owner: o }\ntiles:\n  - { name: L, tileType: MARKDOWN, bounds: {}, markdown: \'${{ dashboard("/budget.yaml") }}\' }\n' }, CONFIG, ['dev', 'prod']);
    expect(bad.environments.map((e) => e.diagnostics.map(formatDiagnostic))).toEqual([
      ['dashboards/a.yaml:3:59  [dev] tiles[0].markdown: dashboard("/budget.yaml"): budget.yaml is not deployed in dev (its dashcd.environments leaves dev out)'],
      [],
    ]);
  });

  it('reports two files with one id in an environment', () => {
    const id = 'id: 6b0f6d3e-0000-4000-8000-0000000000aa\n';
    const bad = resolve({ 'a.yaml': `${id}dashboardMetadata: { name: A, owner: o }\ntiles: []\n`, 'b.yaml': SERVICE }, CONFIG, ['prod']);
    expect(bad.environments[0]?.diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/b.yaml:14:11  [prod] dashcd.overrides.prod.id: duplicate dashboard id 6b0f6d3e-0000-4000-8000-0000000000aa: dashboards/a.yaml has the same id; every dashboard needs its own id',
    ]);
  });

  it('reports a misspelt key of a tile whose tileType is wrong along with the type', () => {
    const bad = resolve({ 'a.yaml': 'dashboardMetadata: { name: A, owner: o }\ntiles:\n  - { name: N, tileType: MARKDWN, markdown: x, bounds: { widht: 304 } }\n' }, CONFIG, ['dev']);
    expect(bad.environments[0]?.diagnostics.map((d) => d.path)).toEqual(['tiles[0].tileType']);
    // The hint a project without environments gets; it was zod's list of all ~50 tile types.
    expect(bad.environments[0]?.diagnostics.map((d) => d.message)).toEqual(['unknown value "MARKDWN"; did you mean MARKDOWN?']);
    expect(bad.environments[0]?.warnings.map(formatDiagnostic)).toEqual(['dashboards/a.yaml:3:65  [dev] tiles[0].bounds.widht: unknown key; did you mean width?']);
  });

  it('refuses a dashcd: member that does not parse, and unknown names in its overrides and tile limits', () => {
    const bad = resolve({ 'a.yaml': 'dashboardMetadata: { name: A, owner: o }\ntiles: []\ndashcd:\n  overrides:\n    prd: {}\n  tiles:\n    N: { environments: [dev, qa] }\n', 'b.yaml': 'dashboardMetadata: { name: B, owner: o }\ntiles: []\ndashcd: { bogus: 1 }\n' });
    expect(bad.diagnostics.map(formatDiagnostic)).toEqual([
      'dashboards/a.yaml:5:10  dashcd.overrides.prd: unknown environment or group prd — did you mean prod? (declared in dashcd.yaml: dev, staging, prod, production)',
      'dashboards/a.yaml:7:30  dashcd.tiles.N.environments[1]: unknown environment or group qa (declared in dashcd.yaml: dev, staging, prod, production)',
      'dashboards/b.yaml:3:9  dashcd: Unrecognized key: "bogus"',
    ]);
  });

  it('gives a misspelt value of a group to the group’s members only', () => {
    const config = 'values:\n  note: x\nenvironments:\n  dev:\n  prod:\ngroups:\n  production:\n    environments: [prod]\n    values:\n      ntoe: y\n';
    const typo = resolve({ 'a.yaml': 'dashboardMetadata: { name: "${{ values.note }}", owner: o }\ntiles: []\n' }, config);
    expect(typo.environments.map((e) => e.warnings.map((w) => [w.env, w.path]))).toEqual([[], [['prod', 'groups.production.values.ntoe']]]);
  });

  it('suggests the used name for a misspelt value under an environment, as a warning of the environments it feeds', () => {
    const config = 'values:\n  managementZone: null\nenvironments:\n  dev:\n  prod:\n    values:\n      managmentZone: { id: "1" }\n';
    const file = 'dashboardMetadata:\n  name: A\n  owner: o\n  dashboardFilter: { managementZone: "${{ values.managementZone }}" }\ntiles: []\n';
    const typo = resolve({ 'a.yaml': file }, config);
    expect(typo.warnings).toEqual([]);
    expect(typo.environments.map((e) => e.warnings.map(formatDiagnostic))).toEqual([
      [],
      ['dashcd.yaml:7:22  [prod] environments.prod.values.managmentZone: value managmentZone is declared but no dashboard uses it — did you mean managementZone? (templates use ${{ values.managementZone }})'],
    ]);
  });
});

describe('many unused values', () => {
  it('suggest a used name for the first 20 of them; the rest are warned about without one', () => {
    const names = Array.from({ length: 25 }, (_, i) => `note${String.fromCharCode(97 + i)}`);
    const config = `values:\n${names.map((n) => `  ${n}x: 1\n`).join('')}environments:\n  dev:\n`;
    const file = `dashboardMetadata:\n  name: A\n  owner: o\n  tags: [${names.map((n) => `"\${{ values.${n}y }}"`).join(', ')}]\ntiles: []\n`;
    const result = resolve({ 'a.yaml': file }, config);
    const unused = [...result.warnings, ...result.environments.flatMap((e) => e.warnings)].map(formatDiagnostic).filter((w) => w.includes('is declared but no dashboard uses it'));
    expect(unused).toHaveLength(25);
    expect(unused.filter((w) => w.includes('a misspelling of') || w.includes('did you mean')).length).toBe(20);
  });
});

describe('a misspelt value in a template', () => {
  it('points the unused value’s warning at the template, not at renaming the declared value to the typo', () => {
    const config = 'values:\n  timeframe: -2h\nenvironments:\n  dev:\n  prod:\n';
    const file = 'dashboardMetadata:\n  name: "A ${{ values.timefrme }}"\n  owner: o\ntiles: []\n';
    const typo = resolve({ 'a.yaml': file }, config);
    const warnings = typo.environments.flatMap((e) => e.warnings.map(formatDiagnostic));
    expect(warnings).toEqual([
      'dashcd.yaml:2:14  [dev] values.timeframe: value timeframe is declared but no dashboard uses it — a template uses ${{ values.timefrme }}, which nothing declares: a misspelling of timeframe?',
      'dashcd.yaml:2:14  [prod] values.timeframe: value timeframe is declared but no dashboard uses it — a template uses ${{ values.timefrme }}, which nothing declares: a misspelling of timeframe?',
    ]);
    expect(warnings.join('\n')).not.toContain('did you mean timefrme');
  });
});

describe('an unquoted template in a flow collection', () => {
  const FLOW = 'dashboardMetadata: { name: A, owner: o }\ntiles:\n  - name: N\n    tileType: MARKDOWN\n    bounds: { top: 0, left: 0, width: 304, height: ${{ values.height }} }\n    markdown: x\n';
  const LINKS = `dashboardMetadata: { name: B, owner: o }\ntiles:\n  - { name: L, tileType: MARKDOWN, bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: '\${{ dashboard("a.yaml") }}' }\n`;

  it('is one problem at the template saying to quote it', () => {
    expect(parseTemplateFile(FLOW).problems).toEqual([
      { line: 5, col: 52, path: '', message: 'a template inside a flow collection ({ … } or [ … ]) must be quoted: write "${{ values.height }}" (in quotes a whole-value template still gives a number or an object)' },
    ]);
  });

  it('quotes the whole plain scalar, text around the template included, in a list as in a map', () => {
    const parsed = parseTemplateFile('dashboardMetadata: { name: A, owner: o, tags: [team, x-${{ env.name }}-${{ env.group }} , "q"] }\ntiles: []\n');
    expect(parsed.problems?.map((p) => [p.line, p.col])).toEqual([[1, 56]]);
    expect('value' in parsed && parsed.value.dashboardMetadata).toEqual({ name: 'A', owner: 'o', tags: ['team', 'x-${{ env.name }}-${{ env.group }}', 'q'] });
  });

  it('finds only unquoted templates inside flow collections, each plain scalar once, up to a comment or an indicator', () => {
    const source = [
      'a: ${{ env.name }}',
      'b: { q: "${{ env.name }}", s: \'${{ env.name }}\' }',
      'c: [ x${{ env.name }}y z , ${{ env.group }}]',
      'd: {',
      '  e: ${{ values.a }} # note',
      '}',
      'f: [$${{ values.b }}]',
      'g: [${{ values.c ]',
      '',
    ].join('\n');
    const found = unquotedFlowTemplates(source);
    const at = (offset: number): string => source.slice(offset, offset + 4);
    expect(found.map((f) => [at(f.offset), f.template, source.slice(f.scalar.start, f.scalar.end)])).toEqual([
      ['${{ ', '${{ env.name }}', 'x${{ env.name }}y z'],
      ['${{ ', '${{ env.group }}', '${{ env.group }}'],
      ['${{ ', '${{ values.a }}', '${{ values.a }}'],
      ['${{ ', '${{ values.b }}', '$${{ values.b }}'],
    ]);
    expect(quoteFlowTemplates(source, found).split('\n').slice(2, 7)).toEqual(['c: [ "x${{ env.name }}y z" , "${{ env.group }}"]', 'd: {', '  e: "${{ values.a }}" # note', '}', 'f: ["$${{ values.b }}"]']);
    expect(flowTemplateMessage({ offset: 0, template: '${{ dashboard("a.yaml") }}', scalar: { start: 0, end: 0 } })).toBe(
      'a template inside a flow collection ({ … } or [ … ]) must be quoted: write "${{ dashboard(\\"a.yaml\\") }}" (in quotes a whole-value template still gives a number or an object)',
    );
  });

  it('takes no other `$` and braces for a template, trims spaces before an indicator, stops at an unclosed one and at the end', () => {
    const lookalikes = 'a: [ x${b: 1}, y$ {c: 2}, z{{ d }}, "w${{ e }}" ]\nb: w${{ f }}\n';
    expect(unquotedFlowTemplates(lookalikes)).toEqual([]);
    const source = 'a: [${{ x }} ,b]\nc: [${{ y }}${{ z ]\ne: [${{ v ]\nd: [${{ w }}';
    const scalars = unquotedFlowTemplates(source).map((f) => source.slice(f.scalar.start, f.scalar.end));
    expect(scalars).toEqual(['${{ x }}', '${{ y }}', '${{ w }}']);
    expect(unquotedFlowTemplates(source)[2]?.scalar.end).toBe(source.length);
  });

  it('leaves a file whose flow problems are more than unquoted templates with all its problems', () => {
    const parsed = parseTemplateFile('dashboardMetadata: { name: A, owner: ${{ env.name }} }\ntiles: [\n');
    expect('value' in parsed).toBe(false);
    expect(parsed.problems?.[0]).toMatchObject({ line: 1, col: 38, message: expect.stringContaining('must be quoted') });
    expect(parsed.problems?.length).toBeGreaterThan(1);
  });

  it('still counts for the other files (no false missing reference, no false unused value) and deploys nowhere', () => {
    const result = resolve({ 'a.yaml': FLOW, 'b.yaml': LINKS }, 'values:\n  height: 152\nenvironments:\n  dev:\n');
    expect(result.warnings).toEqual([]);
    expect(result.environments[0]?.diagnostics).toEqual([]);
    expect(result.environments[0]?.dashboards.map((d) => [d.file, (d.body as Dashboard).tiles[0]?.markdown])).toEqual([['dashboards/b.yaml', deriveDashboardId('a.yaml')]]);
  });
});

