import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { planDashboard, type DesiredInput } from '../../src/plan/build-plan.js';
import { withOwnershipTag } from '../../src/plan/ownership.js';
import type { Dashboard, LiveDashboard } from '../../src/schema/dashboard.js';

const ID = '11111111-1111-4111-8111-111111111111';
const TAG = 'managed-by:dashcd';
const RULES = { ownershipTag: TAG, ignore: [] };

const tileArb = fc.record(
  {
    name: fc.string({ maxLength: 6 }),
    tileType: fc.constantFrom('MARKDOWN' as const, 'HEADER' as const),
    bounds: fc.record({ top: fc.nat(400), left: fc.nat(400), width: fc.nat(400), height: fc.nat(400) }),
    markdown: fc.string({ maxLength: 6 }),
  },
  { requiredKeys: ['name', 'tileType', 'bounds'] },
);

const bodyArb: fc.Arbitrary<Dashboard> = fc.record({
  dashboardMetadata: fc.record(
    {
      name: fc.string({ maxLength: 6 }),
      owner: fc.constantFrom('a', 'b'),
      tags: fc.oneof(fc.array(fc.constantFrom('x', 'y', TAG), { maxLength: 3 }), fc.constant(null)),
      shared: fc.boolean(),
    },
    { requiredKeys: ['name', 'owner'] },
  ),
  tiles: fc.array(tileArb, { maxLength: 3 }),
});

type LiveVariant = (written: LiveDashboard) => LiveDashboard;

function withTags(live: LiveDashboard, tags: string[] | undefined): LiveDashboard {
  const { tags: _old, ...rest } = live.dashboardMetadata;
  return { ...live, dashboardMetadata: tags === undefined ? rest : { ...live.dashboardMetadata, tags } };
}

/** What a target may return for a dashboard apply wrote: as written, or changed by hand, or ordered its own way. */
const VARIANTS: Record<string, LiveVariant> = {
  asWritten: (w) => w,
  tagFirst: (w) => withTags(w, [TAG, ...(w.dashboardMetadata.tags ?? []).filter((t) => t !== TAG)]),
  tagTwice: (w) => withTags(w, [...(w.dashboardMetadata.tags ?? []), TAG]),
  tagRemoved: (w) => withTags(w, (w.dashboardMetadata.tags ?? []).filter((t) => t !== TAG)),
  tagsDropped: (w) => withTags(w, undefined),
  tileRenamed: (w) => ({ ...w, tiles: w.tiles.map((t, i) => (i === 0 ? { ...t, name: `${t.name}!` } : t)) }),
  membersReversed: (w) => Object.fromEntries(Object.entries(w).reverse()) as LiveDashboard,
  serverDefaults: (w) => ({ ...w, dashboardMetadata: { ...w.dashboardMetadata, popularity: 3 } }),
  negativeZero: (w) => ({ ...w, tiles: (w.tiles as Dashboard['tiles']).map((t) => ({ ...t, bounds: { ...t.bounds, top: t.bounds.top === 0 ? -0 : t.bounds.top } })) }),
};

/** The live dashboard after apply wrote `body` to a target that keeps members as sent (the embedded server). */
function writtenLive(body: Dashboard): LiveDashboard {
  return JSON.parse(JSON.stringify({ metadata: { configurationVersions: [1] }, id: ID, ...withOwnershipTag(body, TAG) })) as LiveDashboard;
}

function desired(body: Dashboard, bodyJson?: string): DesiredInput {
  return { id: ID, file: 'a.yaml', name: body.dashboardMetadata.name, body, ...(bodyJson !== undefined ? { bodyJson } : {}) };
}

describe('planDashboard from the body text (property)', () => {
  it('plans exactly what the full comparison plans, whatever the target returns', () => {
    fc.assert(
      fc.property(bodyArb, fc.constantFrom(...Object.keys(VARIANTS)), (body, variant) => {
        const live = (VARIANTS[variant] as LiveVariant)(writtenLive(body));
        const fromText = planDashboard(desired(body, JSON.stringify(body)), live, RULES);
        expect(fromText).toEqual(planDashboard(desired(body), live, RULES));
      }),
      { numRuns: 400 },
    );
  });

  it('recognises an unchanged dashboard without decoding its body', () => {
    fc.assert(
      fc.property(bodyArb, (body) => {
        const bodyJson = JSON.stringify(body);
        const undecodable: DesiredInput = {
          id: ID,
          file: 'a.yaml',
          name: body.dashboardMetadata.name,
          get body(): Dashboard {
            throw new Error('decoded');
          },
          bodyJson,
        };
        const plainTags = body.dashboardMetadata.tags ?? [];
        // Without the tag in the file and with a tag list written (or none at all), apply's write is recognisable.
        fc.pre(!plainTags.includes(TAG) && body.dashboardMetadata.tags !== null && (body.dashboardMetadata.tags === undefined || plainTags.length > 0));
        expect(planDashboard(undecodable, writtenLive(body), RULES)).toEqual({ action: 'unchanged', id: ID, name: body.dashboardMetadata.name, file: 'a.yaml' });
      }),
      { numRuns: 200 },
    );
  });
});
