import { describe, expect, it } from 'vitest';
import { Dashboard } from '../../../src/schema/dashboard.js';
import { schemaErrorMap } from '../../../src/desired/dashboard-rules.js';
import { problemsBeyondTileType } from '../../../src/desired/unknown-type-tiles.js';

const bounds = { top: 0, left: 0, width: 304, height: 152 };

/** What a dashboard of these tiles adds beyond the schema's own issues: `path: message` each. */
function beyond(tiles: unknown[]): string[] {
  const value = { dashboardMetadata: { name: 'A', owner: 'o' }, tiles };
  const parsed = Dashboard.safeParse(value, { error: schemaErrorMap });
  const issues = parsed.success ? [] : parsed.error.issues;
  return problemsBeyondTileType(value, issues).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('problemsBeyondTileType', () => {
  it('checks a misspelt type’s tile as the model it most likely meant: its own members too', () => {
    expect(beyond([{ name: 'Notes', tileType: 'MARKDOWM', bounds: { ...bounds, top: '0' }, markdown: 5 }])).toEqual([
      'tiles.0.bounds.top: Invalid input: expected number, received string',
      'tiles.0.markdown: Invalid input: expected string, received number',
    ]);
  });

  it('checks a type that is near none as far as every model goes (name, bounds), not its own members', () => {
    expect(beyond([{ tileType: 'FOOBARBAZ_QUUX', bounds: { ...bounds, left: 'x' }, markdown: 5 }])).toEqual([
      'tiles.0.name: Required',
      'tiles.0.bounds.left: Invalid input: expected number, received string',
    ]);
    // A type that is no string at all: as far as every model goes, its type left to the schema's own issue.
    expect(beyond([{ name: 'x', tileType: 7, bounds: { ...bounds, width: 'w' } }])).toEqual(['tiles.0.bounds.width: Invalid input: expected number, received string']);
  });

  it('adds nothing for a tile that is fine apart from its type, for tiles with a known type, or for what is no tile', () => {
    expect(beyond([{ name: 'Notes', tileType: 'MARKDOWM', bounds, markdown: 'x' }])).toEqual([]);
    expect(beyond([{ name: 'Notes', tileType: 'MARKDOWN', bounds: { ...bounds, top: '0' }, markdown: 'x' }])).toEqual([]);
    expect(beyond(['not a tile', null, [1]])).toEqual([]);
  });

  it('keeps each tile’s problems at its own index, in the order of the schema’s issues', () => {
    const tiles = [
      { name: 'a', tileType: 'HOSTS', bounds },
      { name: 'b', tileType: 'MARKDOWM', bounds: { ...bounds, height: 'h' }, markdown: 'x' },
      { name: 'c', tileType: 'HEADR', bounds: { ...bounds, top: 't' } },
    ];
    expect(beyond(tiles)).toEqual(['tiles.1.bounds.height: Invalid input: expected number, received string', 'tiles.2.bounds.top: Invalid input: expected number, received string']);
  });

  it('looks only at an unknown type’s own issue (tiles.N.tileType), not at other unions or paths', () => {
    const value = { tiles: [{ name: 'x', tileType: 'MARKDOWM', bounds: { ...bounds, top: 't' }, markdown: 'm' }] };
    const unionElsewhere = { code: 'invalid_union', path: ['tiles', 0], message: 'm', errors: [], input: undefined } as never;
    const notTiles = { code: 'invalid_union', path: ['other', 0, 'tileType'], message: 'm', errors: [], input: undefined } as never;
    const notAnIndex = { code: 'invalid_union', path: ['tiles', '0', 'tileType'], message: 'm', errors: [], input: undefined } as never;
    const otherCode = { code: 'invalid_type', path: ['tiles', 0, 'tileType'], message: 'm', expected: 'string', input: undefined } as never;
    const deeper = { code: 'invalid_union', path: ['tiles', 0, 'tileType', 'x'], message: 'm', errors: [], input: undefined } as never;
    expect(problemsBeyondTileType(value, [unionElsewhere, notTiles, notAnIndex, otherCode, deeper])).toEqual([]);
    const own = { code: 'invalid_union', path: ['tiles', 0, 'tileType'], message: 'm', errors: [], input: undefined } as never;
    expect(problemsBeyondTileType(value, [own]).map((issue) => issue.path)).toEqual([['tiles', 0, 'bounds', 'top']]);
    expect(problemsBeyondTileType({ tiles: 'none' }, [own])).toEqual([]);
    expect(problemsBeyondTileType(null, [own])).toEqual([]);
  });
});
