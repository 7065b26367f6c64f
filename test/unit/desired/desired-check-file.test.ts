import { describe, expect, it } from 'vitest';
import { checkDashboardSource } from '../../../src/desired/check-file.js';
import { createDesiredCache } from '../../../src/desired/desired-cache.js';
import { packCheck, type PackedCheck } from '../../../src/desired/packed-check.js';
import { idProblem, isDashboardShaped, NOT_A_DASHBOARD, schemaErrorMap } from '../../../src/desired/dashboard-rules.js';
import { idPosition, sourceLocator } from '../../../src/desired/locate-problems.js';

/*
 * Positions are counted by hand in the sources below (1-based line and column of the offending value, or of its key
 * when the value is empty, or of the nearest enclosing node when the member is missing); messages are the ones the
 * docs (docs/files-and-plans.md) and the real service's constraint violations use.
 */

const UUID_HINT = 'use the 8-4-4-4-12 hex form, or remove the id to derive one from the file path';

/** Both paths (fast parser + schema, and yaml with source ranges) must give the same answer. */
function check(source: string) {
  const fast = checkDashboardSource(source);
  expect(checkDashboardSource(source, { useFastPath: false })).toStrictEqual(fast);
  return fast;
}

const problem = (line: number, col: number, path: string, message: string) => ({ line, col, path, message });

describe('checkDashboardSource', () => {
  it('accepts a valid dashboard and returns its value', () => {
    expect(check('dashboardMetadata:\n  name: CPU\n  owner: ops\ntiles: []\n')).toStrictEqual({
      ok: true,
      value: { dashboardMetadata: { name: 'CPU', owner: 'ops' }, tiles: [] },
    });
  });

  it('locates a malformed id at its value', () => {
    expect(check('id: not-a-uuid\ndashboardMetadata:\n  name: CPU\n  owner: ops\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(1, 5, 'id', `Not a valid UUID: "not-a-uuid"; ${UUID_HINT}`)],
    });
  });

  it('locates a missing member at its parent, an empty one at its key, a wrong one at its value', () => {
    expect(check('dashboardMetadata:\n  name: CPU\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(2, 3, 'dashboardMetadata.owner', 'Required')],
    });
    expect(check('tiles: []\n')).toStrictEqual({ ok: false, problems: [problem(1, 1, 'dashboardMetadata', 'Required')] });
    const tile = (bounds: string) => `dashboardMetadata: {name: a, owner: b}\ntiles:\n  - name: x\n    tileType: MARKDOWN\n    bounds:${bounds}\n    markdown: hi\n`;
    expect(check(tile(''))).toStrictEqual({ ok: false, problems: [problem(5, 5, 'tiles[0].bounds', 'Invalid input: expected object, received null')] });
    expect(check(tile(' {top: "0", left: 0, width: 304, height: 38}'))).toStrictEqual({
      ok: false,
      problems: [problem(5, 19, 'tiles[0].bounds.top', 'Invalid input: expected number, received string')],
    });
  });

  it('shows the value found for an enum typo', () => {
    expect(check('dashboardMetadata:\n  name: CPU\n  owner: ops\n  tilesNameSize: huge\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(4, 18, 'dashboardMetadata.tilesNameSize', 'unknown value "huge"; use one of small, medium, large')],
    });
  });

  it('lists every problem in line order', () => {
    const source = 'tiles:\n  - name: x\n    tileType: MARKDOWN\n    bounds: {top: "0", left: 0, width: 304, height: 38}\n    markdown: hi\ndashboardMetadata: {name: a}\n';
    expect(check(source)).toStrictEqual({
      ok: false,
      problems: [
        problem(4, 19, 'tiles[0].bounds.top', 'Invalid input: expected number, received string'),
        problem(6, 20, 'dashboardMetadata.owner', 'Required'),
      ],
    });
    expect(check('id: x\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(1, 1, 'dashboardMetadata', 'Required'), problem(1, 5, 'id', `Not a valid UUID: "x"; ${UUID_HINT}`)],
    });
  });

  it('refuses what is not a dashboard mapping', () => {
    for (const source of ['- a\n', 'just text\n', 'x: 1\n']) {
      expect(check(source), source).toStrictEqual({ ok: false, problems: [problem(1, 1, '', NOT_A_DASHBOARD)] });
    }
    for (const source of ['', '# nothing\n']) {
      expect(check(source), source).toStrictEqual({ ok: false, problems: [problem(1, 1, '', `${NOT_A_DASHBOARD} (the file holds no YAML document)`)] });
    }
  });

  it('refuses a second document and reports a syntax error where it is', () => {
    expect(check('dashboardMetadata: {name: a, owner: b}\ntiles: []\n---\nx: 1\n')).toStrictEqual({
      ok: false,
      problems: [problem(3, 1, '', 'more than one YAML document (---): a dashboard file holds exactly one')],
    });
    expect(check('dashboardMetadata:\n  name: "CPU\ntiles: []\n')).toStrictEqual({ ok: false, problems: [problem(4, 1, '', 'Missing closing "quote')] });
  });

  it('names a duplicate key and still reports the schema problems of the rest', () => {
    expect(check('dashboardMetadata:\n  name: CPU\n  owner: ops\n  name: CPU2\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(4, 3, '', 'Map keys must be unique: name appears more than once')],
    });
    expect(check('dashboardMetadata:\n  name: CPU\n  name: CPU2\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(2, 3, 'dashboardMetadata.owner', 'Required'), problem(3, 3, '', 'Map keys must be unique: name appears more than once')],
    });
  });

  it('refuses an alias without an anchor and an alias inside its own anchor, at the alias', () => {
    expect(check('dashboardMetadata: {name: a, owner: *o}\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(1, 37, '', 'alias *o has no anchor &o before it: define the anchor first, or write the value out')],
    });
    expect(check('dashboardMetadata: &m {name: a, owner: b, x: *m}\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(1, 46, '', 'alias *m is inside the node its anchor &m names, so the value would contain itself: write the value out')],
    });
  });
});

describe('dashboard rules', () => {
  it('calls a value dashboard-shaped when it is a mapping with its own dashboardMetadata or tiles', () => {
    expect(isDashboardShaped({ dashboardMetadata: {} })).toBe(true);
    expect(isDashboardShaped({ tiles: [] })).toBe(true);
    expect(isDashboardShaped({ name: 'x' })).toBe(false);
    expect(isDashboardShaped(Object.assign([], { tiles: [] }))).toBe(false);
    expect(isDashboardShaped(Object.create({ tiles: [] }))).toBe(false);
    expect(isDashboardShaped(null)).toBe(false);
    expect(isDashboardShaped('tiles')).toBe(false);
  });

  it('asks for a UUID only when an id is a non-empty string', () => {
    for (const id of [undefined, null, '', 5, '6f8e4f2a-1b2c-4d3e-8f90-a1b2c3d4e5f6']) expect(idProblem(id), String(id)).toBeUndefined();
    expect(idProblem('cpu')).toBe(`Not a valid UUID: "cpu"; ${UUID_HINT}`);
  });

  it('calls a missing member Required and leaves other messages to zod', () => {
    expect(schemaErrorMap({ code: 'invalid_type', expected: 'string', input: undefined } as never)).toBe('Required');
    expect(schemaErrorMap({ code: 'invalid_type', expected: 'string', input: 5 } as never)).toBeUndefined();
    expect(schemaErrorMap({ code: 'too_small', input: undefined } as never)).toBeUndefined();
  });
});

describe('source positions', () => {
  it('finds the top-level id, or 1:1 without one', () => {
    expect(idPosition('# c\nid:   abc\ntiles: []\n')).toEqual({ line: 2, col: 7 });
    expect(idPosition('tiles: []\n')).toEqual({ line: 1, col: 1 });
  });

  it('locates paths, and the nearest existing ancestor of a missing one', () => {
    const locator = sourceLocator('dashboardMetadata:\n  name: CPU\ntiles:\n  - name: x\n    bounds:\n');
    expect(locator.at(['dashboardMetadata', 'name'])).toEqual({ line: 2, col: 9, start: 27, end: 30, exact: true });
    expect(locator.at(['tiles', 0, 'name'])).toEqual({ line: 4, col: 11, start: 48, end: 49, exact: true });
    expect(locator.at(['tiles', 0, 'bounds'])).toMatchObject({ line: 5, col: 5, start: 54, exact: true });
    expect(locator.at(['tiles', 5])).toEqual({ line: 4, col: 3, start: 40, end: 40, exact: false });
    expect(locator.at(['nope'])).toEqual({ line: 1, col: 1, start: 0, end: 0, exact: false });
    expect(locator.linePos(27)).toEqual({ line: 2, col: 9 });
    expect(sourceLocator('').at(['a'])).toEqual({ line: 1, col: 1, start: 0, end: 0, exact: false });
  });
});

describe('desired cache', () => {
  const check1: PackedCheck = { ok: true, fileId: undefined, name: 'a', hasEnvironmentOverrides: false, bodyJson: '{"dashboardMetadata":{"name":"a","owner":"o"},"tiles":[]}' };
  const check2 = { ok: false as const, problems: [problem(1, 1, '', NOT_A_DASHBOARD)] };

  it('returns copies of what was stored by content hash', () => {
    const cache = createDesiredCache();
    expect(cache.get('h1')).toBeUndefined();
    cache.set('h1', check1);
    const got = cache.get('h1');
    expect(got).toStrictEqual(check1);
    expect(got).not.toBe(check1);
    if (got?.ok) got.name = 'changed';
    expect(cache.get('h1')).toStrictEqual(check1);
    expect(cache.size).toBe(1);
  });

  it('drops the least recently used entry past maxEntries', () => {
    const cache = createDesiredCache({ maxEntries: 2 });
    cache.set('a', check1);
    cache.set('b', check2);
    cache.get('a');
    cache.set('c', check2);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toStrictEqual([check1, undefined, check2]);
    cache.set('c', check1);
    cache.set('d', check1);
    expect([cache.get('a'), cache.get('c'), cache.get('d'), cache.size]).toStrictEqual([undefined, check1, check1, 2]);
  });
});

describe('packCheck (the form the loader holds)', () => {
  it('keeps the file id only when it is a non-empty string, the name, the dashcd: flag, and the body as JSON without id and metadata', () => {
    const value = { id: 'ABC', metadata: { v: 1 }, dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [], dashcd: { environments: ['prod'] } };
    expect(packCheck({ ok: true, value, warnings: [problem(1, 1, 'x', 'unknown')] })).toStrictEqual({
      ok: true,
      fileId: 'ABC',
      name: 'n',
      hasEnvironmentOverrides: true,
      bodyJson: '{"dashboardMetadata":{"name":"n","owner":"o"},"tiles":[],"dashcd":{"environments":["prod"]}}',
      warnings: [problem(1, 1, 'x', 'unknown')],
    });
    for (const id of ['', null, undefined]) {
      const packed = packCheck({ ok: true, value: { id, dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [] } });
      expect(packed).toStrictEqual({ ok: true, fileId: undefined, name: 'n', hasEnvironmentOverrides: false, bodyJson: '{"dashboardMetadata":{"name":"n","owner":"o"},"tiles":[]}' });
    }
    const invalid = { ok: false as const, problems: [problem(2, 3, 'tiles', 'Required')] };
    expect(packCheck(invalid)).toBe(invalid);
  });
});
