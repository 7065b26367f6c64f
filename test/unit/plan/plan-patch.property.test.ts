import fc from 'fast-check';
import jsonpatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { normalizeForCompare } from '../../../src/dashboards/normalize.js';
import { withOwnershipTag } from '../../../src/dashboards/ownership.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { PLAN_ONE_TAG as TAG, planOne } from '../../helpers/plan-one.js';

const none = { ignore: [] };

const tileArb = fc.record(
  {
    name: fc.string({ maxLength: 8 }),
    tileType: fc.constantFrom('MARKDOWN' as const, 'HEADER' as const),
    bounds: fc.record({ top: fc.nat(400), left: fc.nat(400), width: fc.nat(400), height: fc.nat(400) }),
    configured: fc.boolean(),
    isAutoRefreshDisabled: fc.boolean(),
    nameSize: fc.constantFrom('small' as const, 'medium' as const, '' as const, null),
    markdown: fc.string({ maxLength: 8 }),
  },
  { requiredKeys: ['name', 'tileType', 'bounds'] },
);

const dashboardArb: fc.Arbitrary<Dashboard> = fc.record({
  dashboardMetadata: fc.record(
    {
      name: fc.string({ maxLength: 8 }),
      owner: fc.constantFrom('a', 'b'),
      shared: fc.boolean(),
      tags: fc.array(fc.constantFrom('x', 'y', 'z', TAG), { maxLength: 4 }),
      popularity: fc.nat(),
    },
    { requiredKeys: ['name', 'owner'] },
  ),
  tiles: fc.array(tileArb, { maxLength: 5 }),
});

describe('plan patches (property)', () => {
  // A live dashboard without the ownership tag is adopted, and its patch adds the tag: what apply writes, exactly.
  it('an update or adopt patch turns the normalised live dashboard into the normalised desired one', () => {
    fc.assert(
      fc.property(dashboardArb, dashboardArb, (live, body) => {
        const change = planOne(live, body);
        const from = normalizeForCompare(live, none) as object;
        if (change?.action === 'unchanged') {
          expect(from).toEqual(normalizeForCompare(withOwnershipTag(body, TAG), none));
          return;
        }
        expect(change?.action).toBe(live.dashboardMetadata.tags?.includes(TAG) ? 'update' : 'adopt');
        if (change?.action !== 'update' && change?.action !== 'adopt') return;
        const patched = jsonpatch.applyPatch(structuredClone(from), change.patch, true, false).newDocument;
        expect(patched).toEqual(normalizeForCompare(change.desired, none));
      }),
      { numRuns: 300 },
    );
  });

  it('a patch also holds when the desired tiles are the live ones with some removed, edited and inserted', () => {
    const editArb = fc.array(fc.constantFrom('keep', 'drop', 'edit', 'insert'), { minLength: 5, maxLength: 5 });
    fc.assert(
      fc.property(dashboardArb, editArb, tileArb, (live, edits, extra) => {
        const tiles = live.tiles.flatMap((t, i) => {
          const edit = edits[i % edits.length];
          if (edit === 'drop') return [];
          if (edit === 'edit') return [{ ...t, name: `${t.name}!` }];
          return edit === 'insert' ? [extra, t] : [t];
        });
        const body = { ...live, tiles };
        const change = planOne(live, body);
        if (change?.action !== 'update' && change?.action !== 'adopt') return;
        const from = normalizeForCompare(live, none) as object;
        expect(jsonpatch.applyPatch(structuredClone(from), change.patch, true, false).newDocument).toEqual(normalizeForCompare(change.desired, none));
        expect(change.before).toHaveLength(change.patch.length);
      }),
      { numRuns: 300 },
    );
  });

  it('normalising is idempotent and blind to key order', () => {
    fc.assert(
      fc.property(dashboardArb, (dashboard) => {
        const once = normalizeForCompare(dashboard, none);
        expect(normalizeForCompare(once, none)).toEqual(once);
        const reversed = JSON.parse(JSON.stringify(dashboard, (_k, v: unknown) =>
          v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
        )) as unknown;
        expect(JSON.stringify(normalizeForCompare(reversed, none))).toBe(JSON.stringify(once));
      }),
      { numRuns: 300 },
    );
  });
});
