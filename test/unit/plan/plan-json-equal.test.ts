import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { buildPlan } from '../../../src/plan/build-plan.js';
import { diffJson, jsonEqual } from '../../../src/plan/diff.js';
import { sortKeysDeep, toJsonValue, type JsonValue } from '../../../src/plan/json-value.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';

/** Small JSON values with few distinct leaves, so equal and nearly-equal pairs are common. */
const leaf = fc.constantFrom<JsonValue>(null, true, false, 0, -0, 1, '', 'a', 'b');
const jsonArb = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom('a', 'b', '__proto__', '0'), tie('value'), { maxKeys: 3 }),
  ),
})).value;

describe('jsonEqual (the unchanged fast path of diffJson)', () => {
  it('agrees with isDeepStrictEqual on normalised JSON, once -0 is written as JSON writes it (0)', () => {
    fc.assert(
      fc.property(jsonArb, jsonArb, (a, b) => {
        const x = sortKeysDeep(toJsonValue(a) ?? null);
        const y = sortKeysDeep(toJsonValue(b) ?? null);
        const asWritten = (v: JsonValue): unknown => JSON.parse(JSON.stringify(v));
        expect(jsonEqual(x, y)).toBe(isDeepStrictEqual(asWritten(x), asWritten(y)));
        expect(jsonEqual(x, sortKeysDeep(x))).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is true for one object compared with itself, and false for objects that are not plain, however empty', () => {
    const tile = { name: 'CPU', tileType: 'MARKDOWN' };
    expect(jsonEqual(tile, tile)).toBe(true);
    expect(jsonEqual(new Date(0), {})).toBe(false);
    expect(jsonEqual({}, new Map())).toBe(false);
    expect(jsonEqual(new Map(), new Map())).toBe(false);
  });

  it('takes -0 for 0 (JSON writes both as 0), but tells an array from an object and a missing key from another', () => {
    expect(jsonEqual(-0, 0)).toBe(true);
    expect(jsonEqual({ n: [0] }, { n: [-0] })).toBe(true);
    expect(diffJson({ n: -0, m: 1 }, { n: 0, m: 2 }).patch).toEqual([{ op: 'replace', path: '/m', value: 2 }]);
    expect(jsonEqual(0, false)).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
  });
});

describe('json-value copies', () => {
  it('keep a __proto__ member as data at every depth, with keys sorted', () => {
    const parsed = JSON.parse('{"b":{"__proto__":{"x":1},"a":2},"__proto__":[1]}') as unknown;
    const sorted = sortKeysDeep(toJsonValue(parsed) ?? null);
    expect(JSON.stringify(sorted)).toBe('{"__proto__":[1],"b":{"__proto__":{"x":1},"a":2}}');
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype);
  });
});

describe('buildPlan on a live dashboard that is exactly what apply wrote', () => {
  const ID = '11111111-1111-4111-8111-111111111111';
  const TAG = 'managed-by:dashcd';
  const body = {
    dashboardMetadata: { name: 'n', owner: 'o', tags: ['a'] },
    tiles: [{ name: 'm', tileType: 'MARKDOWN', configured: true, bounds: { top: 0, left: 0, width: 1, height: 1 }, markdown: 'x' }],
  } as unknown as Dashboard;
  const plan = (live: unknown) =>
    buildPlan({ desired: [{ id: ID, file: 'f.yaml', name: 'n', body }], live: new Map([[ID, live as Dashboard]]), liveOwned: [], ownershipTag: TAG, ignore: [], kind: classicDashboards, target: 't' });

  it('is unchanged whatever the key order, id case and server metadata', () => {
    const live = {
      tiles: body.tiles,
      metadata: { configurationVersions: [7] },
      dashboardMetadata: { tags: ['a', TAG], owner: 'o', name: 'n' },
      id: ID.toUpperCase(),
    };
    expect(plan(live).changes.map((c) => c.action)).toEqual(['unchanged']);
  });

  it('is unchanged where the live dashboard has -0 for the file\'s 0: writing the file again could not change it', () => {
    const tiles = [{ ...(body.tiles[0] as object), bounds: { top: -0, left: 0, width: 1, height: 1 } }];
    const live = { id: ID, dashboardMetadata: { name: 'n', owner: 'o', tags: ['a', TAG] }, tiles };
    expect(plan(live).changes.map((c) => c.action)).toEqual(['unchanged']);
    const edited = { ...live, tiles: [{ ...(tiles[0] as object), markdown: 'y' }] };
    const [change] = plan(edited).changes;
    expect(change?.action === 'update' && change.patch).toEqual([{ op: 'replace', path: '/tiles/0/markdown', value: 'x' }]);
  });
});
