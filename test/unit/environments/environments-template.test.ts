import { describe, expect, it } from 'vitest';
import { mergeDeep } from '../../../src/environments/deep-merge.js';
import type { Environment } from '../../../src/environments/environment.js';
import { renderTemplates } from '../../../src/environments/render-templates.js';
import { describeEnvironments, selectEnvironments } from '../../../src/environments/select-environments.js';
import { hasTemplate, parseExpression, parseTemplate, templatesIn, templateUses } from '../../../src/environments/template.js';

describe('template syntax', () => {
  it('splits a string into text and expressions, with where each starts', () => {
    expect(parseTemplate('Hosts in ${{ values.mz.name }} (${{ env.name }})')).toEqual([
      { kind: 'text', text: 'Hosts in ' },
      { kind: 'expr', expr: { kind: 'value', path: ['mz', 'name'] }, source: '${{ values.mz.name }}', offset: 9 },
      { kind: 'text', text: ' (' },
      { kind: 'expr', expr: { kind: 'env', member: 'name' }, source: '${{ env.name }}', offset: 32 },
      { kind: 'text', text: ')' },
    ]);
  });

  it('reads dashboard("…") with either quote, env.group, and leaves shell-style ${VAR} alone', () => {
    expect(parseTemplate(`\${{dashboard('../a.yaml')}}\${{ dashboard("b.yaml") }}\${{ env.group }} \${HOME}`).map((p) => (p.kind === 'expr' ? p.expr : p.text))).toEqual([
      { kind: 'dashboard', file: '../a.yaml' },
      { kind: 'dashboard', file: 'b.yaml' },
      { kind: 'env', member: 'group' },
      ' ${HOME}',
    ]);
  });

  it('writes $${{ as a literal ${{', () => {
    expect(parseTemplate('a $${{ values.x }} b')).toEqual([{ kind: 'text', text: 'a ${{ values.x }} b' }]);
  });

  it('reports an unknown expression and an unclosed template', () => {
    expect(parseTemplate('${{ value.x }}')).toEqual([
      { kind: 'expr', expr: { kind: 'invalid', message: 'unknown template "value.x": use values.NAME, env.name, env.group or dashboard("file.yaml")' }, source: '${{ value.x }}', offset: 0 },
    ]);
    expect(parseTemplate('x ${{ values.a')).toEqual([
      { kind: 'text', text: 'x ' },
      { kind: 'expr', expr: { kind: 'invalid', message: 'unclosed ${{ (a template ends with }})' }, source: '${{ values.a', offset: 2 },
    ]);
  });

  it('tells a string with template syntax from one without', () => {
    expect([hasTemplate('a ${{ b'), hasTemplate('${ b }}'), hasTemplate('{{ b }}'), hasTemplate('$ {{'), hasTemplate('')]).toEqual([true, false, false, false, false]);
  });

  it('reads an expression only when all of it is one of the forms', () => {
    const kinds = (texts: string[]): unknown[] => texts.map((t) => parseExpression(t));
    expect(kinds(['values.a-b_c.D9', 'env.name', 'env.group', 'dashboard( "a b.yaml" )', "dashboard('')"])).toEqual([
      { kind: 'value', path: ['a-b_c', 'D9'] },
      { kind: 'env', member: 'name' },
      { kind: 'env', member: 'group' },
      { kind: 'dashboard', file: 'a b.yaml' },
      { kind: 'dashboard', file: '' },
    ]);
    const invalid = ['values', 'values.', 'values.a.', 'xvalues.a', 'values.a b', 'values.a!', 'env.names', 'xenv.name', 'env', 'dashboard("a")x', 'xdashboard("a")', 'dashboard("a\')', 'dashboard(a)', ''];
    for (const text of invalid) expect(parseExpression(text), text).toEqual({ kind: 'invalid', message: `unknown template ${JSON.stringify(text)}: use values.NAME, env.name, env.group or dashboard("file.yaml")` });
  });

  it('keeps text around escapes and expressions in order, adjacent expressions apart', () => {
    expect(parseTemplate('')).toEqual([]);
    expect(parseTemplate('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
    expect(parseTemplate('$${{x}}${{ env.name }}${{env.group}}!')).toEqual([
      { kind: 'text', text: '${{x}}' },
      { kind: 'expr', expr: { kind: 'env', member: 'name' }, source: '${{ env.name }}', offset: 7 },
      { kind: 'expr', expr: { kind: 'env', member: 'group' }, source: '${{env.group}}', offset: 22 },
      { kind: 'text', text: '!' },
    ]);
    expect(parseTemplate('a $${{ b $${{ c')).toEqual([{ kind: 'text', text: 'a ${{ b ${{ c' }]);
    expect(parseTemplate('$${{ }} ${{ env.name')).toEqual([
      { kind: 'text', text: '${{ }} ' },
      { kind: 'expr', expr: { kind: 'invalid', message: 'unclosed ${{ (a template ends with }})' }, source: '${{ env.name', offset: 8 },
    ]);
  });

  it('says what a file’s templates and dashcd: member use, each once, in the order written', () => {
    const file = {
      dashboardMetadata: { name: '${{ env.name }} ${{ values.mz.name }}', tags: ['${{ env.group }}', '${{ values.mz.name }}', '${{ nope }}', 7, null, true] },
      tiles: [{ markdown: '${{ dashboard("hosts.yaml") }} $${{ values.escaped }}' }],
      dashcd: { environments: ['dev'] },
    };
    expect(templateUses(file)).toEqual(['env.name', 'values.mz.name', 'env.group', 'dashboard("hosts.yaml")', 'dashcd:']);
    expect(templateUses({ dashboardMetadata: { name: 'plain' }, tiles: [] })).toEqual([]);
  });

  it('finds every template in a value with the path of its string; keys are not templates', () => {
    expect([...templatesIn('${{ env.name }}')].map((f) => f.path)).toEqual([[]]);
    expect([...templatesIn([[1, null, 'no'], [true, '${{ env.group }}']])].map((f) => f.path)).toEqual([[1, 1]]);
    const found = [...templatesIn({ a: ['x', '${{ values.one }}'], '${{ values.key }}': { b: 'y ${{ env.name }}' } })];
    expect(found.map((f) => [f.path, f.part.source])).toEqual([
      [['a', 1], '${{ values.one }}'],
      [['${{ values.key }}', 'b'], '${{ env.name }}'],
    ]);
  });
});

const PROD = { name: 'prod', group: 'production' };
const noDashboards = (): { problem: string } => ({ problem: 'no dashboards here' });
const ANY_SIZE = Number.MAX_SAFE_INTEGER;

describe('renderTemplates', () => {
  const values = { top: 304, shared: true, mz: { id: '42', name: 'Prod' }, tags: ['a'] };

  it('keeps a whole-value template’s type: number, boolean, object, list', () => {
    const rendered = renderTemplates(
      { top: '${{ values.top }}', shared: '${{ values.shared }}', filter: '${{ values.mz }}', tags: '${{ values.tags }}', label: 'MZ ${{ values.mz.name }} #${{ values.top }} in ${{ env.name }}/${{ env.group }}' },
      { env: PROD, values, dashboardId: noDashboards, maxInserted: ANY_SIZE },
    );
    expect(rendered.problems).toEqual([]);
    expect(rendered.value).toEqual({ top: 304, shared: true, filter: { id: '42', name: 'Prod' }, tags: ['a'], label: 'MZ Prod #304 in prod/production' });
    expect([...rendered.fromValues]).toEqual([
      ['["top"]', ['top']],
      ['["shared"]', ['shared']],
      ['["filter"]', ['mz']],
      ['["tags"]', ['tags']],
      ['["label"]', ['top']],
    ]);
  });

  it('reports an unknown value with the nearest name, and an object inside a longer string', () => {
    const rendered = renderTemplates({ a: ['${{ values.mz.nam }}'], b: 'zone ${{ values.mz }}' }, { env: PROD, values, dashboardId: noDashboards, maxInserted: ANY_SIZE });
    expect(rendered.problems).toEqual([
      { path: ['a', 0], message: 'unknown value values.mz.nam — did you mean name? (known: id, name)', template: { source: '${{ values.mz.nam }}', offset: 0 }, missingValue: ['mz', 'nam'] },
      {
        path: ['b'],
        message: 'values.mz is an object: inside a longer string a template needs a string, number or boolean (write it as the whole value to insert an object)',
        template: { source: '${{ values.mz }}', offset: 5 },
        valuePath: ['mz'],
      },
    ]);
  });

  it('leaves out a list item that is a whole template giving an empty string (env.group without a group), nothing else', () => {
    const rendered = renderTemplates(
      { tags: ['team', '${{ env.group }}', 'g-${{ env.group }}', '${{ values.empty }}', '', '${{ env.name }}', 7], name: '${{ env.group }}' },
      { env: { name: 'dev', group: null }, values: { empty: '' }, dashboardId: noDashboards, maxInserted: ANY_SIZE },
    );
    expect(rendered).toMatchObject({ problems: [], value: { tags: ['team', 'g-', '', 'dev', 7], name: '' } });
  });

  it('writes strings, numbers and booleans into a longer string, a template first included; refuses null and lists there', () => {
    const rendered = renderTemplates(
      { a: '${{ env.name }}/x', b: 'on=${{ values.shared }} top=${{ values.top }}', c: 'n ${{ values.none }}', d: 'l ${{ values.tags }}' },
      { env: PROD, values: { ...values, none: null }, dashboardId: noDashboards, maxInserted: ANY_SIZE },
    );
    expect(rendered.value).toMatchObject({ a: 'prod/x', b: 'on=true top=304' });
    expect(rendered.problems.map((p) => p.message)).toEqual([
      'values.none is null: inside a longer string a template needs a string, number or boolean (write it as the whole value to insert null)',
      'values.tags is a list: inside a longer string a template needs a string, number or boolean (write it as the whole value to insert a list)',
    ]);
  });

  it('names the first unknown step of a value path, a step below a value without members, and no values at all', () => {
    const problems = (path: string, vals: Record<string, unknown>): string[] => renderTemplates(`\${{ ${path} }}`, { env: PROD, values: vals, dashboardId: noDashboards, maxInserted: ANY_SIZE }).problems.map((p) => p.message);
    expect(problems('values.zzzzzz.x', values)).toEqual(['unknown value values.zzzzzz (known: top, shared, mz, tags)']);
    expect(problems('values.top.x.y', values)).toEqual(['values.top.x: values.top has no members']);
    expect(problems('values.a', {})).toEqual(['unknown value values.a (no values declared)']);
  });

  it('resolves dashboard("…") through the context and reports what it refuses', () => {
    const rendered = renderTemplates(['[Hosts](#dashboard;id=${{ dashboard("hosts.yaml") }})', '${{ dashboard("gone.yaml") }}'], {
      env: PROD,
      values,
      dashboardId: (file) => (file === 'hosts.yaml' ? { id: 'e5a4c2b0-0000-4000-8000-000000000001' } : { problem: `no ${file}` }),
      maxInserted: ANY_SIZE,
    });
    expect(rendered.value).toEqual(['[Hosts](#dashboard;id=e5a4c2b0-0000-4000-8000-000000000001)']);
    expect(rendered.problems.map((p) => p.message)).toEqual(['no gone.yaml']);
  });
});

describe('mergeDeep', () => {
  it('merges objects member by member, replaces lists and scalars, never mutates its inputs', () => {
    const base = { mz: { id: '1', name: 'all' }, tags: ['a', 'b'], t: '-2h' };
    const merged = mergeDeep(base, { mz: { id: '9' }, tags: ['c'] });
    expect(merged).toEqual({ mz: { id: '9', name: 'all' }, tags: ['c'], t: '-2h' });
    expect(base).toEqual({ mz: { id: '1', name: 'all' }, tags: ['a', 'b'], t: '-2h' });
  });

  it('removes a member given null only when asked (JSON Merge Patch)', () => {
    expect(mergeDeep({ a: 1, b: { c: 2 } }, { b: { c: null } })).toEqual({ a: 1, b: { c: null } });
    expect(mergeDeep({ a: 1, b: { c: 2 } }, { b: { c: null } }, { nullDeletes: true })).toEqual({ a: 1, b: {} });
  });
});

const env = (name: string, group: string | null = null): Environment => ({ name, group, target: { kind: 'embedded' }, values: {} });
const DECLARED = [env('dev'), env('staging'), env('prod-eu', 'production'), env('prod-us', 'production')];

describe('selectEnvironments', () => {
  it('is a single-target run when no environments are declared and none are asked for', () => {
    expect(selectEnvironments([], { names: [], allEnvs: false })).toEqual({ kind: 'single' });
    expect(selectEnvironments([], { names: ['prod'], allEnvs: false })).toEqual({ kind: 'error', message: '--env needs environments: declare them under environments: in dashcd.yaml' });
  });

  it('covers all without a choice, and says no choice was made (apply refuses then)', () => {
    expect(selectEnvironments(DECLARED, { names: [], allEnvs: false })).toEqual({ kind: 'environments', environments: DECLARED, chosen: false });
    expect(selectEnvironments(DECLARED, { names: [], allEnvs: true })).toEqual({ kind: 'environments', environments: DECLARED, chosen: true });
  });

  it('expands groups, names each environment once, in declaration order', () => {
    const selected = selectEnvironments(DECLARED, { names: ['prod-us', 'production', 'dev', 'prod-us'], allEnvs: false });
    expect(selected.kind === 'environments' && selected.environments.map((e) => e.name)).toEqual(['dev', 'prod-eu', 'prod-us']);
  });

  it('refuses an unknown name with the nearest one and the list, and --env with --all-envs', () => {
    expect(selectEnvironments(DECLARED, { names: ['prd-eu'], allEnvs: false })).toEqual({
      kind: 'error',
      message: 'unknown environment prd-eu — did you mean prod-eu? (environments: dev, staging, prod-eu, prod-us; groups: production)',
    });
    expect(selectEnvironments(DECLARED, { names: ['dev'], allEnvs: true }).kind).toBe('error');
  });

  it('describes environments for the list apply prints', () => {
    expect(describeEnvironments([env('dev'), { ...env('prod', 'production'), target: { kind: 'remote', url: 'https://x.example.com', tokenEnv: 'T' } }])).toEqual([
      '  dev                      embedded /e/dev',
      '  prod (group production)  https://x.example.com',
    ]);
    // The targets in one column (the list was ragged: `dev  embedded …`, `staging  embedded …`).
    expect(describeEnvironments([env('dev'), env('staging')])).toEqual(['  dev      embedded /e/dev', '  staging  embedded /e/staging']);
  });
});
