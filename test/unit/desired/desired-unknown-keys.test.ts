import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkDashboardSource } from '../../../src/desired/check-file.js';
import { findUnknownKeys, keysAt } from '../../../src/desired/unknown-keys.js';
import { closedObject } from '../../../src/schema/known-fields.js';

const base = { dashboardMetadata: { name: 'n', owner: 'o' }, tiles: [] as unknown[] };

describe('findUnknownKeys', () => {
  it('finds keys outside the known fields of the top level, metadata, filters, bounds and tiles', () => {
    const found = findUnknownKeys({
      ...base,
      extra: 1,
      dashboardMetadata: { name: 'n', owner: 'o', tag: [], dashboardFilter: { timeFrame: 'x', managementZone: { id: 'z', nam: 'n' } } },
      tiles: [{ name: 't', tileType: 'MARKDOWN', markdown: '', bounds: { widht: 1 }, tilefilter: {} }],
    });
    expect(found.map((u) => [...u.parent, u.key].join('.'))).toEqual([
      'extra',
      'dashboardMetadata.tag',
      'dashboardMetadata.dashboardFilter.timeFrame',
      'dashboardMetadata.dashboardFilter.managementZone.nam',
      'tiles.0.tilefilter',
      'tiles.0.bounds.widht',
    ]);
  });

  it('still walks a tile whose tileType is wrong, through the members every tile has', () => {
    const tiles = [{ name: 't', tileType: 'MARKDWN', markdown: '', bounds: { widht: 1 }, tileFilter: { timeFrame: '-2h' }, anything: 1 }];
    expect(findUnknownKeys({ ...base, tiles }).map((u) => [...u.parent, u.key].join('.'))).toEqual(['tiles.0.bounds.widht', 'tiles.0.tileFilter.timeFrame']);
    const checked = checkDashboardSource('dashboardMetadata: { name: n, owner: o }\ntiles:\n  - { name: t, tileType: MARKDWN, markdown: x, bounds: { widht: 304 } }\n');
    expect(checked).toMatchObject({ ok: false, warnings: [{ path: 'tiles[0].bounds.widht', message: expect.stringContaining('did you mean width?') }] });
  });

  it('a tile with no tileType: a key no model has and near tileType is tileType misspelt; keys of any model are not', () => {
    const tiles = [{ name: 't', tiletype: 'MARKDOWN', markdown: 'x', tileFilter: {}, queries: [], anything: 1, bounds: { top: 0 } }];
    expect(findUnknownKeys({ ...base, tiles }).map((u) => [[...u.parent, u.key].join('.'), u.known])).toEqual([['tiles.0.tiletype', ['tileType']]]);
    // With a tileType, wrong or right, a near key is no tag: the model's own rules apply.
    expect(findUnknownKeys({ ...base, tiles: [{ ...tiles[0], tileType: 'NOPE' }] }).map((u) => u.key)).toEqual([]);
    const checked = checkDashboardSource('dashboardMetadata: { name: n, owner: o }\ntiles:\n  - name: t\n    tiletype: MARKDOWN\n    markdown: x\n    bounds: { top: 0, left: 0, width: 304, height: 152 }\n');
    expect(checked).toMatchObject({
      ok: false,
      problems: [{ path: 'tiles[0].tileType', message: 'Required: every tile has a tileType (dashcd schema lists them)' }],
      warnings: [{ path: 'tiles[0].tiletype', message: expect.stringContaining('did you mean tileType?') }],
    });
  });

  it('knows each tile model’s own fields, and leaves open objects (visualConfig, queries) alone', () => {
    const tiles = [
      { name: 'p', tileType: 'OPEN_PROBLEMS', bounds: {}, useBackgroundColor: true, markdown: 'not a problem tile field' },
      { name: 'd', tileType: 'DATA_EXPLORER', bounds: {}, queries: [{ id: 'A', anything: 1 }], visualConfig: { whatever: {} } },
      { name: 'u', tileType: 'NO_SUCH_TYPE', bounds: {}, oddity: 1 },
    ];
    expect(findUnknownKeys({ ...base, tiles }).map((u) => [...u.parent, u.key].join('.'))).toEqual(['tiles.0.markdown']);
  });
  it('selects union options by a literal or enum tag alike, first match winning, and gives full paths through arrays', () => {
    const shape = z.object({
      groups: z.array(
        z.object({
          items: z.array(
            z.discriminatedUnion('kind', [
              closedObject(z.object({ kind: z.literal('a'), x: z.number() })),
              closedObject(z.object({ kind: z.enum(['b', 'c']), y: z.number() })),
              closedObject(z.object({ kind: z.literal(7), z: z.number() })),
            ]),
          ),
        }),
      ),
    });
    const value = { groups: [{ items: [] }, { items: [{ kind: 'a', x: 1, y: 2 }, { kind: 'c', x: 1 }, { kind: 7, q: 0 }, { kind: 'zz', x: 1 }, 'not an object'] }] };
    expect(findUnknownKeys(value, shape).map((u) => ({ at: u.parent, key: u.key, known: u.known }))).toEqual([
      { at: ['groups', 1, 'items', 0], key: 'y', known: ['kind', 'x'] },
      { at: ['groups', 1, 'items', 1], key: 'x', known: ['kind', 'y'] },
      { at: ['groups', 1, 'items', 2], key: 'q', known: ['kind', 'z'] },
    ]);
  });
});

describe('checkDashboardSource with unknown keys', () => {
  it('is valid with warnings, the same on the fast path and without it', () => {
    const source = 'dashboardMetadata:\n  name: n\n  owner: o\n  tag: [x]\ntiles: []\n';
    const check = checkDashboardSource(source);
    expect(check).toEqual({ ok: true, value: { dashboardMetadata: { name: 'n', owner: 'o', tag: ['x'] }, tiles: [] }, warnings: [{ line: 4, col: 3, path: 'dashboardMetadata.tag', message: 'unknown key; did you mean tags?' }] });
    expect(checkDashboardSource(source, { useFastPath: false })).toEqual(check);
  });
});

describe('keysAt: the keys an object schema allows at a path', () => {
  const Inner = z.strictObject({ target: z.string(), tokenEnv: z.string().optional() });
  const Schema = z.strictObject({
    name: z.string(),
    environments: z.record(z.string(), Inner.nullable()).optional(),
    list: z.array(z.object({ a: z.number(), b: z.number() })).default([]),
    either: z.union([z.object({ branch: z.string() }), z.object({ tagPattern: z.string() })]),
    piped: z.object({ x: z.number() }).pipe(z.object({ x: z.number() })),
  });

  it('gives the top level’s keys for the empty path', () => {
    expect(keysAt(Schema, [])).toEqual(['name', 'environments', 'list', 'either', 'piped']);
  });

  it('goes through records, nullable and optional members, arrays, unions and pipes', () => {
    expect(keysAt(Schema, ['environments', 'dev'])).toEqual(['target', 'tokenEnv']);
    expect(keysAt(Schema, ['list', 0])).toEqual(['a', 'b']);
    expect(keysAt(Schema, ['either'])).toEqual(['branch', 'tagPattern']);
    expect(keysAt(Schema, ['piped'])).toEqual(['x']);
  });

  it('gives none where the path leads to no object or nowhere', () => {
    expect(keysAt(Schema, ['name'])).toEqual([]);
    expect(keysAt(Schema, ['nothing', 'here'])).toEqual([]);
    expect(keysAt(Schema, ['environments', 'dev', 'target'])).toEqual([]);
  });
});
