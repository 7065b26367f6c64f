import { describe, expect, it } from 'vitest';
import { declaredEnvironments, valueLayers, type Environment } from '../../../src/environments/environment.js';
import type { EnvironmentsConfig } from '../../../src/environments/environments-config.js';
import { collapseByEnvironment, createDiagnosticLocator, type ProjectText } from '../../../src/environments/locate-diagnostics.js';

/** dashcd.yaml as text and as the parsed config (the same members), for pointing at where a value is set. */
const LONG = 'x'.repeat(58);
const PROJECT_SOURCE = `values:
  top: 1
  mz: { id: "1", name: all }
groups:
  production:
    environments: [prod]
    values:
      top: 2
environments:
  dev:
  prod:
    values:
      mz:
        id: "9"
      fits: "${LONG}"
      long: "${LONG}x"
`;
const config: EnvironmentsConfig = {
  values: { top: 1, mz: { id: '1', name: 'all' } },
  groups: { production: { environments: ['prod'], values: { top: 2 } } },
  environments: { dev: {}, prod: { values: { mz: { id: '9' }, fits: LONG, long: `${LONG}x` } } },
};
const project: ProjectText = { file: 'dashcd.yaml', source: PROJECT_SOURCE, config };
const [dev, prod] = declaredEnvironments(config) as [Environment, Environment];
const dashboard = { file: 'dashboards/a.yaml', source: 'dashboardMetadata:\n  name: "a \\u0024{{ values.top }}"\n  owner: ${{ values.top }}\ntiles: []\n' };

describe('createDiagnosticLocator: a problem at its place, and where its value is set', () => {
  const locate = createDiagnosticLocator(project);

  it('names the most specific layer that sets the value, with the value as the environment has it', () => {
    const at = (env: Environment, valuePath: string[]): string => locate(dashboard, { path: ['tiles'], message: 'm', valuePath }, env).message;
    expect(at(prod, ['top'])).toBe('m (values.top = 2, set in groups.production.values at dashcd.yaml:8:12)');
    expect(at(dev, ['top'])).toBe('m (values.top = 1, set in values at dashcd.yaml:2:8)');
    expect(at(prod, ['mz', 'id'])).toBe('m (values.mz.id = "9", set in environments.prod.values at dashcd.yaml:14:13)');
    expect(at(prod, ['mz', 'name'])).toBe('m (values.mz.name = "all", set in values at dashcd.yaml:3:24)');
  });

  it('for a path below any value, names the deepest value that is set, shown as set', () => {
    expect(locate(dashboard, { path: [], message: 'm', valuePath: ['mz', 'name', 'first'] }, dev).message).toBe('m (values.mz.name.first = "all", set in values at dashcd.yaml:3:24)');
    expect(locate(dashboard, { path: [], message: 'm', valuePath: ['nothing', 'here'] }, dev).message).toBe('m');
  });

  it('shows a value of up to 60 characters as JSON, a longer one not', () => {
    expect(locate(dashboard, { path: [], message: 'm', valuePath: ['fits'] }, prod).message).toBe(`m (values.fits = "${LONG}", set in environments.prod.values at dashcd.yaml:15:13)`);
    expect(locate(dashboard, { path: [], message: 'm', valuePath: ['long'] }, prod).message).toBe('m (values.long, set in environments.prod.values at dashcd.yaml:16:13)');
  });

  it('points at the template inside the string, not at a later one with the same text', () => {
    const problem = { path: ['dashboardMetadata', 'owner'], message: 'bad', template: { source: '${{ values.top }}', offset: 0 } };
    expect(locate(dashboard, problem, prod)).toEqual({ file: 'dashboards/a.yaml', line: 3, col: 10, path: 'dashboardMetadata.owner', message: 'bad', env: 'prod' });
    const escaped = { ...problem, path: ['dashboardMetadata', 'name'] };
    expect(locate(dashboard, escaped)).toEqual({ file: 'dashboards/a.yaml', line: 2, col: 9, path: 'dashboardMetadata.name', message: 'bad' });
  });
});

describe('valueLayers', () => {
  it('lists the environment, its group and the defaults, most specific first; no group layer without a group', () => {
    expect(valueLayers(config, prod)).toEqual([
      { path: ['environments', 'prod', 'values'], values: { mz: { id: '9' }, fits: LONG, long: `${LONG}x` } },
      { path: ['groups', 'production', 'values'], values: { top: 2 } },
      { path: ['values'], values: { top: 1, mz: { id: '1', name: 'all' } } },
    ]);
    expect(valueLayers(config, dev)).toEqual([
      { path: ['environments', 'dev', 'values'], values: undefined },
      { path: ['values'], values: { top: 1, mz: { id: '1', name: 'all' } } },
    ]);
  });

  it('has a group layer without values for a group written as a list, and none for a group the config lacks', () => {
    const listed: EnvironmentsConfig = { environments: { a: {} }, groups: { g: ['a'] } };
    const [a] = declaredEnvironments(listed) as [Environment];
    expect(valueLayers(listed, a)).toEqual([
      { path: ['environments', 'a', 'values'], values: undefined },
      { path: ['groups', 'g', 'values'], values: undefined },
      { path: ['values'], values: undefined },
    ]);
    expect(valueLayers({ environments: {} }, a)).toEqual([
      { path: ['environments', 'a', 'values'], values: undefined },
      { path: ['values'], values: undefined },
    ]);
    expect(valueLayers({}, { ...a, group: 'gone' })).toEqual([
      { path: ['environments', 'a', 'values'], values: undefined },
      { path: ['values'], values: undefined },
    ]);
  });

  it('gives an environment without a group no group layer, whatever the groups are named', () => {
    const named: EnvironmentsConfig = { environments: { a: {}, b: {} }, groups: { null: { environments: ['a'], values: { x: 1 } } } };
    const [, b] = declaredEnvironments(named) as [Environment, Environment];
    expect(b.group).toBeNull();
    expect(valueLayers(named, b).map((l) => l.path.join('.'))).toEqual(['environments.b.values', 'values']);
  });
});

describe('declaredEnvironments', () => {
  it('is remote only with both a target and a token variable, the target without trailing slashes', () => {
    const envs = declaredEnvironments({
      environments: {
        a: { target: 'https://h.example/e/x//', tokenEnv: 'A_TOKEN' },
        b: { target: 'https://h.example/' },
        c: { tokenEnv: 'C_TOKEN' },
        d: { target: 'https://h.example/a/b', tokenEnv: 'D' },
      },
    });
    expect(envs.map((e) => e.target)).toEqual([
      { kind: 'remote', url: 'https://h.example/e/x', tokenEnv: 'A_TOKEN' },
      { kind: 'embedded' },
      { kind: 'embedded' },
      { kind: 'remote', url: 'https://h.example/a/b', tokenEnv: 'D' },
    ]);
  });
});

describe('collapseByEnvironment', () => {
  const d = { file: 'a.yaml', line: 3, col: 5, path: 'tiles[0]', message: 'unknown value values.x' };

  it('joins the environments of one problem at one place, in first-seen order, each once', () => {
    expect(collapseByEnvironment([{ ...d, env: 'dev' }, { ...d, env: 'prod' }, { ...d, env: 'dev' }, { ...d, env: 'stage' }])).toEqual([{ ...d, env: 'dev, prod, stage' }]);
  });

  it('keeps problems apart that differ in file, place, path or message', () => {
    const others = [{ ...d, file: 'b.yaml' }, { ...d, line: 4 }, { ...d, col: 6 }, { ...d, path: 'tiles[1]' }, { ...d, message: 'other' }];
    expect(collapseByEnvironment([d, ...others].map((x) => ({ ...x, env: 'dev' })))).toHaveLength(6);
  });

  it('keeps one without an environment as it is, and never changes its input', () => {
    const input = [{ ...d }, { ...d, env: 'prod' }, { ...d, env: 'dev' }];
    expect(collapseByEnvironment(input)).toEqual([{ ...d }]);
    const first = { ...d, env: 'dev' };
    expect(collapseByEnvironment([first, { ...d }, { ...d, env: 'prod' }])).toEqual([{ ...d, env: 'dev, prod' }]);
    expect(first.env).toBe('dev');
    expect(collapseByEnvironment([{ ...d, env: 'dev-2' }, { ...d, env: 'dev' }])).toEqual([{ ...d, env: 'dev-2, dev' }]);
  });
});
