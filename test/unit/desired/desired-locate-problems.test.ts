import { describe, expect, it } from 'vitest';
import { locateProblems, sourceLocator } from '../../../src/desired/locate-problems.js';
import { TILE_TYPES } from '../../../src/schema/tiles.js';

/*
 * The slow path on its own: every position below is counted by hand in its source (1-based line and column of the
 * offending value, of its key when the value is empty, of the nearest enclosing node when a member is missing, or
 * of the alias a member is reached through). Messages: yaml's and zod's own texts where they are kept,
 * docs/files-and-plans.md's otherwise.
 */

const problem = (line: number, col: number, path: string, message: string) => ({ line, col, path, message });
const NOT_A_DASHBOARD = 'not a dashboard: expected a mapping with dashboardMetadata and tiles';
const TOP_LEVEL_KEYS = 'unknown key (known here: id, metadata, dashboardMetadata, tiles)';
const META = 'dashboardMetadata: {name: a, owner: b}\n';
const NAME_SIZE = 'Invalid option: expected one of "small"|"medium"|"large"';

describe('locateProblems: files without a document', () => {
  it('reports a directive error of a file with no document, and that it holds none', () => {
    expect(locateProblems('%YAML\n')).toStrictEqual({
      ok: false,
      problems: [problem(1, 1, '', '%YAML directive should contain exactly one part'), problem(1, 1, '', `${NOT_A_DASHBOARD} (the file holds no YAML document)`)],
    });
  });

  it('points at the empty document after --- for a file that holds nothing else', () => {
    expect(locateProblems('---\n')).toStrictEqual({ ok: false, problems: [problem(1, 4, '', NOT_A_DASHBOARD)] });
  });
});

describe('locateProblems: positions', () => {
  it('points a missing top-level member at the mapping, after leading comments', () => {
    expect(locateProblems('# CPU board\ntiles: []\n')).toStrictEqual({ ok: false, problems: [problem(2, 1, 'dashboardMetadata', 'Required')] });
  });

  it('points a written null at the null, an empty value at its key, and an empty tagged value after the tag', () => {
    const tile = (bounds: string) => `${META}tiles:\n  - name: x\n    tileType: MARKDOWN\n    bounds:${bounds}\n    markdown: hi\n`;
    expect(locateProblems(tile(' null'))).toStrictEqual({ ok: false, problems: [problem(5, 13, 'tiles[0].bounds', 'Invalid input: expected object, received null')] });
    expect(locateProblems(tile(' ~'))).toStrictEqual({ ok: false, problems: [problem(5, 13, 'tiles[0].bounds', 'Invalid input: expected object, received null')] });
    expect(locateProblems(tile(''))).toStrictEqual({ ok: false, problems: [problem(5, 5, 'tiles[0].bounds', 'Invalid input: expected object, received null')] });
    // `bounds: !!str` is the empty string: `!!str` takes columns 13-17, the empty value is at 18.
    expect(locateProblems(tile(' !!str'))).toStrictEqual({ ok: false, problems: [problem(5, 18, 'tiles[0].bounds', 'Invalid input: expected object, received string')] });
  });

  it('points a flow-mapping member written without a value at its key', () => {
    // `  - {name: x, tileType: MARKDOWN, ` is 34 characters: `bounds` is column 35.
    expect(locateProblems(`${META}tiles:\n  - {name: x, tileType: MARKDOWN, bounds, markdown: hi}\n`)).toStrictEqual({
      ok: false,
      problems: [problem(3, 35, 'tiles[0].bounds', 'Invalid input: expected object, received null')],
    });
  });

  it('orders problems on one line by column, whatever order the schema finds them in', () => {
    // The schema checks name, owner, ..., preset in that order; the file writes them the other way round.
    expect(locateProblems('dashboardMetadata: {preset: 1, owner: 2, name: 3}\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [
        problem(1, 29, 'dashboardMetadata.preset', 'Invalid input: expected boolean, received number'),
        problem(1, 39, 'dashboardMetadata.owner', 'Invalid input: expected string, received number'),
        problem(1, 48, 'dashboardMetadata.name', 'Invalid input: expected string, received number'),
      ],
    });
  });

  it('points a problem reached through an alias at the alias', () => {
    // `tiles: *t` — the alias is column 8; the tile it names has no bounds.
    expect(locateProblems(`x: &t [{name: t, tileType: MARKDOWN, markdown: hi}]\n${META}tiles: *t\n`)).toStrictEqual({
      ok: false,
      problems: [problem(3, 8, 'tiles[0].bounds', 'Required')],
      warnings: [problem(1, 1, 'x', TOP_LEVEL_KEYS)],
    });
    expect(locateProblems(`m: &m {name: a}\ndashboardMetadata: *m\ntiles: []\n`)).toStrictEqual({
      ok: false,
      problems: [problem(2, 20, 'dashboardMetadata.owner', 'Required')],
      warnings: [problem(1, 1, 'm', TOP_LEVEL_KEYS)],
    });
  });
});

describe('locateProblems: values found', () => {
  it('shows a closed set’s value found when it is not a string', () => {
    expect(locateProblems('dashboardMetadata:\n  name: CPU\n  owner: ops\n  tilesNameSize: 5\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(4, 18, 'dashboardMetadata.tilesNameSize', `${NAME_SIZE} (found 5)`)],
    });
    expect(locateProblems(`${META}tiles:\n  - name: t\n    tileType: 5\n    bounds: {top: 0, left: 0, width: 1, height: 1}\n`)).toStrictEqual({
      ok: false,
      problems: [problem(4, 15, 'tiles[0].tileType', `Invalid tileType: expected one of ${TILE_TYPES.join(', ')} (found 5)`)],
    });
  });

  it('shows no value found for a collection where a closed set’s value belongs, or for a missing one', () => {
    expect(locateProblems('dashboardMetadata:\n  name: CPU\n  owner: ops\n  tilesNameSize: [small]\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(4, 18, 'dashboardMetadata.tilesNameSize', NAME_SIZE)],
    });
    // No tileType: the tile (column 5) is pointed at, and the tile itself is not "found".
    expect(locateProblems(`${META}tiles:\n  - name: t\n    bounds: {top: 0, left: 0, width: 1, height: 1}\n`)).toStrictEqual({
      ok: false,
      problems: [problem(3, 5, 'tiles[0].tileType', 'Required: every tile has a tileType (dashcd schema lists them)')],
    });
  });

  it('does not show a value found for other problems', () => {
    expect(locateProblems('dashboardMetadata:\n  name: 5\n  owner: ops\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(2, 9, 'dashboardMetadata.name', 'Invalid input: expected string, received number')],
    });
  });
});

describe('locateProblems: duplicate keys and warnings', () => {
  it('names a duplicate key whose value starts on the next line, and checks the last one written', () => {
    expect(locateProblems('dashboardMetadata:\n  name: a\n  owner: b\ntiles: []\ndashboardMetadata:\n  name: c\n')).toStrictEqual({
      ok: false,
      problems: [problem(5, 1, '', 'Map keys must be unique: dashboardMetadata appears more than once'), problem(6, 3, 'dashboardMetadata.owner', 'Required')],
    });
    expect(locateProblems(`${META}tiles: []\ntiles: []`)).toStrictEqual({ ok: false, problems: [problem(3, 1, '', 'Map keys must be unique: tiles appears more than once')] });
  });

  it('keeps the unknown-key warnings of a file that fails', () => {
    expect(locateProblems('dashboardMetadata:\n  name: CPU\n  tag: [x]\ntiles: []\n')).toStrictEqual({
      ok: false,
      problems: [problem(2, 3, 'dashboardMetadata.owner', 'Required')],
      warnings: [problem(3, 3, 'dashboardMetadata.tag', 'unknown key; did you mean tags?')],
    });
  });

  it('points an unknown key reached through an alias at the alias', () => {
    // `dashboardMetadata: ` is 19 characters: the alias is column 20.
    expect(locateProblems('shared: &m {name: n, owner: o, tag: [a]}\ndashboardMetadata: *m\ntiles: []\n')).toStrictEqual({
      ok: true,
      value: { shared: { name: 'n', owner: 'o', tag: ['a'] }, dashboardMetadata: { name: 'n', owner: 'o', tag: ['a'] }, tiles: [] },
      warnings: [problem(1, 1, 'shared', TOP_LEVEL_KEYS), problem(2, 20, 'dashboardMetadata.tag', 'unknown key; did you mean tags?')],
    });
  });

  it('returns no warnings member for a clean file', () => {
    expect(locateProblems(`${META}tiles: []\n`)).toStrictEqual({ ok: true, value: { dashboardMetadata: { name: 'a', owner: 'b' }, tiles: [] } });
  });
});

describe('sourceLocator', () => {
  const FLOW = `${META}tiles:\n  - {name: x, tileType: MARKDOWN, bounds, markdown: hi}\n`;

  it('locates a member written without a value at its key, exactly, with no extent', () => {
    const start = FLOW.indexOf('bounds,');
    expect(sourceLocator(FLOW).at(['tiles', 0, 'bounds'])).toEqual({ line: 3, col: 35, start, end: start, exact: true });
  });

  it('does not index a sequence by a string', () => {
    // `tiles: ` is 7 characters: the sequence starts at offset 7, column 8.
    const locator = sourceLocator('tiles: [a]\n');
    expect(locator.at(['tiles', 'length'])).toEqual({ line: 1, col: 8, start: 7, end: 7, exact: false });
    expect(locator.at(['tiles', 0])).toEqual({ line: 1, col: 9, start: 8, end: 9, exact: true });
  });

  it('stops at an alias', () => {
    const locator = sourceLocator('a: &x {b: 1}\nc: *x\n');
    expect(locator.at(['c', 'b'])).toEqual({ line: 2, col: 4, start: 16, end: 16, exact: false });
    expect(locator.at(['c'])).toEqual({ line: 2, col: 4, start: 16, end: 18, exact: true });
  });
});
