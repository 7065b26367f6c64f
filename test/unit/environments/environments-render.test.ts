import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_INSERTED_MAX, lookupValue, renderTemplates } from '../../../src/environments/render-templates.js';

const DEV = { name: 'dev', group: null };
const noDashboards = (): { problem: string } => ({ problem: 'no dashboards here' });
const ANY_SIZE = Number.MAX_SAFE_INTEGER;

describe('renderTemplates: what a problem points at', () => {
  it('reports an unknown template expression where it is, and keeps the rest of the string', () => {
    const rendered = renderTemplates({ title: 'a ${{ nope }} b' }, { env: DEV, values: {}, dashboardId: noDashboards, maxInserted: ANY_SIZE });
    expect(rendered.value).toEqual({ title: 'a  b' });
    expect(rendered.problems).toEqual([
      { path: ['title'], message: 'unknown template "nope": use values.NAME, env.name, env.group or dashboard("file.yaml")', template: { source: '${{ nope }}', offset: 2 } },
    ]);
  });

  it('a step below a value without members names the value at fault and its whole path', () => {
    const values = { a: { b: 7 } };
    expect(lookupValue(values, ['a', 'b', 'c', 'd'])).toEqual({ ok: false, message: 'values.a.b.c: values.a.b has no members', valuePath: ['a', 'b'] });
    const rendered = renderTemplates('${{ values.a.b.c }}', { env: DEV, values, dashboardId: noDashboards, maxInserted: ANY_SIZE });
    expect(rendered.problems).toEqual([{ path: [], message: 'values.a.b.c: values.a.b has no members', template: { source: '${{ values.a.b.c }}', offset: 0 }, valuePath: ['a', 'b'] }]);
  });

  it('finds a nested value through each of its steps, own members only', () => {
    expect(lookupValue({ a: { b: { c: 'x' } } }, ['a', 'b', 'c'])).toEqual({ ok: true, value: 'x' });
    expect(lookupValue({ a: { b: 1 } }, ['a', 'toString'])).toMatchObject({ ok: false, message: 'unknown value values.a.toString (known: b)' });
  });

  it('gives a did-you-mean to the first 20 problems of a dashboard, and the rest the problem alone', () => {
    const values = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`value${i}x`, i]));
    const tiles = Array.from({ length: 30 }, (_, i) => ({ name: `\${{ values.value${i}y }}` }));
    const rendered = renderTemplates({ tiles }, { env: DEV, values, dashboardId: noDashboards, maxInserted: ANY_SIZE });
    expect(rendered.problems).toHaveLength(30);
    expect(rendered.problems.map((p) => p.message.includes(' — did you mean '))).toEqual([...Array<boolean>(20).fill(true), ...Array<boolean>(10).fill(false)]);
    expect(rendered.problems[0]?.message).toContain('unknown value values.value0y — did you mean value0x?');
    expect(rendered.problems[29]?.message).toMatch(/^unknown value values\.value29y \(known: /);
  });

  it('lists the first 20 known names and how many more', () => {
    const values = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`v${String(i).padStart(2, '0')}`, i]));
    const first20 = Object.keys(values).slice(0, 20).join(', ');
    expect(lookupValue(values, ['nope'])).toMatchObject({ ok: false, message: `unknown value values.nope (known: ${first20} and 5 more)` });
    expect(lookupValue({ a: 1, b: 2 }, ['c'])).toMatchObject({ ok: false, message: 'unknown value values.c — did you mean a? (known: a, b)' });
  });
});

describe('renderTemplates: what templates may insert into one dashboard', () => {
  const big = 'A'.repeat(1000);
  const render = (value: unknown, values: Record<string, unknown>, maxInserted: number) => renderTemplates(value, { env: DEV, values, dashboardId: noDashboards, maxInserted });

  it('renders up to the limit, counting text, whole values and objects as JSON', () => {
    const tiles = Array.from({ length: 4 }, () => ({ markdown: 'x${{ values.big }}' }));
    expect(render(tiles, { big }, 4000).problems).toEqual([]);
    expect(render({ a: '${{ values.big }}', b: 'n=${{ values.n }}' }, { big, n: 12345 }, 1005).problems).toEqual([]);
    // {"k":"AAA…"} is 1,008 characters as JSON: the object counts whole, each time it is used.
    expect(render(['${{ values.o }}'], { o: { k: big } }, 1008).problems).toEqual([]);
    expect(render(['${{ values.o }}'], { o: { k: big } }, 1007).problems).toHaveLength(1);
  });

  it('past the limit, one problem at the template that passed it, naming the value; nothing more is inserted', () => {
    const tiles = Array.from({ length: 1000 }, () => ({ markdown: 'x${{ values.big }}' }));
    const rendered = render(tiles, { big }, 3500);
    expect(rendered.problems).toEqual([
      {
        path: [3, 'markdown'],
        message: 'the templates insert more than 3,500 characters into this dashboard, over what its target accepts in one body: a large value used many times? Use it fewer times, or make it smaller',
        template: { source: '${{ values.big }}', offset: 1 },
        valuePath: ['big'],
      },
    ]);
    const markdowns = (rendered.value as { markdown: string }[]).map((tile) => tile.markdown);
    expect(markdowns.slice(0, 3)).toEqual([`x${big}`, `x${big}`, `x${big}`]);
    // Each string past the limit stays as written, its text around the template included.
    expect(new Set(markdowns.slice(3))).toEqual(new Set(['x${{ values.big }}']));
  });

  it('shares an environment’s budget across its dashboards: past it, each later template that inserts says so, once per dashboard', () => {
    // One large value in every file was paid per file and per environment (20 files in 100 environments: out of memory).
    const budget = { left: 2500 };
    const ctx = { env: DEV, values: { big }, dashboardId: noDashboards, maxInserted: ANY_SIZE, environmentBudget: budget };
    const first = renderTemplates([{ markdown: '${{ values.big }}' }, { markdown: '${{ values.big }}' }], ctx);
    expect(first.problems).toEqual([]);
    expect(budget.left).toBe(2500 - 2 * big.length);
    const second = renderTemplates([{ markdown: '${{ values.big }}' }, { markdown: '${{ values.big }}' }], ctx);
    expect(second.problems).toEqual([
      {
        path: [0, 'markdown'],
        message: `the templates of this environment's dashboards insert more than ${ENVIRONMENT_INSERTED_MAX.toLocaleString('en-US')} characters together: a large value used in many files? Use it in fewer, or make it smaller`,
        template: { source: '${{ values.big }}', offset: 0 },
        valuePath: ['big'],
      },
    ]);
    expect(second.value).toEqual([{ markdown: '${{ values.big }}' }, { markdown: '${{ values.big }}' }]);
    // Spent: a later dashboard's first template says so, the smallest too (it was left as its text, and nothing said).
    const later = renderTemplates({ name: '${{ env.name }}', markdown: '${{ values.big }}' }, ctx);
    expect(later.problems.map((p) => [p.path, p.template.source])).toEqual([[['name'], '${{ env.name }}']]);
    expect(later.problems[0]?.message).toContain("the templates of this environment's dashboards insert more than");
    // A dashboard that inserts nothing is not held to it.
    expect(renderTemplates({ name: 'plain' }, ctx).problems).toEqual([]);
    // Used up exactly is within it; one character more is past it.
    const exact = { left: 2 * big.length };
    const exactly = { ...ctx, environmentBudget: exact };
    expect(renderTemplates([{ markdown: '${{ values.big }}' }, { markdown: '${{ values.big }}' }], exactly).problems).toEqual([]);
    expect(exact.left).toBe(0);
    expect(renderTemplates({ markdown: '${{ values.big }}' }, exactly).problems).toHaveLength(1);
    expect(renderTemplates({ name: 'n=${{ values.big }}' }, { ...ctx, environmentBudget: { left: 0 } }).problems).toHaveLength(1);
    expect(renderTemplates({ name: '${{ values.big }}' }, { ...ctx, environmentBudget: { left: big.length } }).problems).toEqual([]);
    // A dashboard at its own limit exactly is within it too.
    expect(renderTemplates({ name: '${{ values.big }}' }, { ...ctx, maxInserted: big.length, environmentBudget: { left: ANY_SIZE } }).problems).toEqual([]);
  });
});

describe('lookupValue: a committed name is cut in its problem', () => {
  it('shows an unknown name of any length, and the known names, at most 120 characters each', () => {
    const long = 'n'.repeat(500_000);
    const looked = lookupValue({ ['k'.repeat(1_000)]: 1 }, [long]);
    expect(looked.ok).toBe(false);
    const message = looked.ok ? '' : looked.message;
    expect(message.length).toBeLessThan(400);
    expect(message).toContain('… (500,007 characters)');
    expect(message).toContain('… (1,000 characters)');
  });
});
