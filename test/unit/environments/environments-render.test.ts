import { describe, expect, it } from 'vitest';
import { lookupValue, renderTemplates } from '../../../src/environments/render-templates.js';

const DEV = { name: 'dev', group: null };
const noDashboards = (): { problem: string } => ({ problem: 'no dashboards here' });

describe('renderTemplates: what a problem points at', () => {
  it('reports an unknown template expression where it is, and keeps the rest of the string', () => {
    const rendered = renderTemplates({ title: 'a ${{ nope }} b' }, { env: DEV, values: {}, dashboardId: noDashboards });
    expect(rendered.value).toEqual({ title: 'a  b' });
    expect(rendered.problems).toEqual([
      { path: ['title'], message: 'unknown template "nope": use values.NAME, env.name, env.group or dashboard("file.yaml")', template: { source: '${{ nope }}', offset: 2 } },
    ]);
  });

  it('a step below a value without members names the value at fault and its whole path', () => {
    const values = { a: { b: 7 } };
    expect(lookupValue(values, ['a', 'b', 'c', 'd'])).toEqual({ ok: false, message: 'values.a.b.c: values.a.b has no members', valuePath: ['a', 'b'] });
    const rendered = renderTemplates('${{ values.a.b.c }}', { env: DEV, values, dashboardId: noDashboards });
    expect(rendered.problems).toEqual([{ path: [], message: 'values.a.b.c: values.a.b has no members', template: { source: '${{ values.a.b.c }}', offset: 0 }, valuePath: ['a', 'b'] }]);
  });

  it('finds a nested value through each of its steps, own members only', () => {
    expect(lookupValue({ a: { b: { c: 'x' } } }, ['a', 'b', 'c'])).toEqual({ ok: true, value: 'x' });
    expect(lookupValue({ a: { b: 1 } }, ['a', 'toString'])).toMatchObject({ ok: false, message: 'unknown value values.a.toString (known: b)' });
  });
});
