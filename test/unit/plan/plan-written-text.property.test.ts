import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { planDashboard, type DesiredInput } from '../../../src/plan/build-plan.js';
import { isWrittenText } from '../../../src/plan/written-text.js';
import { withOwnershipTag } from '../../../src/dashboards/ownership.js';
import type { Dashboard, LiveDashboard } from '../../../src/schema/dashboard.js';

const ID = '11111111-1111-4111-8111-111111111111';
const TAG = 'managed-by:dashcd';
const RULES = { ownershipTag: TAG, ignore: [], kind: classicDashboards };

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
  otherTagAfter: (w) => withTags(w, [...(w.dashboardMetadata.tags ?? []), 'w']),
  tagsDropped: (w) => withTags(w, undefined),
  tileRenamed: (w) => ({ ...w, tiles: w.tiles.map((t, i) => (i === 0 ? { ...t, name: `${t.name}!` } : t)) }),
  membersReversed: (w) => Object.fromEntries(Object.entries(w).reverse()) as LiveDashboard,
  serverDefaults: (w) => ({ ...w, dashboardMetadata: { ...w.dashboardMetadata, popularity: 3 } }),
};

/** The live dashboard after apply wrote `body` to a target that keeps members as sent (the embedded server). */
function writtenLive(body: Dashboard): LiveDashboard {
  return JSON.parse(JSON.stringify({ metadata: { configurationVersions: [1] }, id: ID, ...withOwnershipTag(body, TAG) })) as LiveDashboard;
}

function desired(body: Dashboard): DesiredInput {
  return { id: ID, file: 'a.yaml', name: body.dashboardMetadata.name, body };
}

/** Tags apply appends the ownership tag to without changing their shape: a list without it, or none at all. */
function plainlyTagged(body: Dashboard): boolean {
  const { tags } = body.dashboardMetadata;
  return tags === undefined || (tags !== null && tags.length > 0 && !tags.includes(TAG));
}

describe('isWrittenText (property)', () => {
  it('answers true only where the full comparison plans unchanged, whatever the target returns', () => {
    fc.assert(
      fc.property(bodyArb, fc.constantFrom(...Object.keys(VARIANTS)), (body, variant) => {
        const text = JSON.stringify((VARIANTS[variant] as LiveVariant)(writtenLive(body)));
        if (isWrittenText(text, JSON.stringify(body), TAG)) expect(planDashboard(desired(body), JSON.parse(text) as LiveDashboard, RULES).action).toBe('unchanged');
      }),
      { numRuns: 1000 },
    );
  });

  it('answers true for what the embedded server returns after apply wrote a body whose tags apply only appends to', () => {
    fc.assert(
      fc.property(bodyArb.filter(plainlyTagged), (body) => {
        expect(isWrittenText(JSON.stringify(writtenLive(body)), JSON.stringify(body), TAG)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('isWrittenText', () => {
  const body: Dashboard = { dashboardMetadata: { name: 'n', owner: 'o', tags: ['a'] }, tiles: [] };
  const bodyJson = JSON.stringify(body);
  const written = '{"dashboardMetadata":{"name":"n","owner":"o","tags":["a","managed-by:dashcd"]},"tiles":[]}';
  const live = (head: string, content = written): string => `{${head},${content.slice(1)}`;

  it('takes the server members in either order, as a GET\'s schema takes them, and nothing else before dashboardMetadata', () => {
    expect(isWrittenText(live('"metadata":{"configurationVersions":[1]},"id":"x"'), bodyJson, TAG)).toBe(true);
    expect(isWrittenText(live('"id":"x","metadata":{"configurationVersions":[1]}'), bodyJson, TAG)).toBe(true);
    expect(isWrittenText(live('"id":"x","owner":"o"'), bodyJson, TAG)).toBe(false);
    expect(isWrittenText(written, bodyJson, TAG)).toBe(false);
    // Text a GET would refuse is never settled on: no member before the comma, an id that is not a string, bad metadata.
    expect(isWrittenText(`{,${written.slice(1)}`, bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"id":5'), bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"metadata":{"configurationVersions":["x"]},"id":"x"'), bodyJson, TAG)).toBe(false);
  });

  it('leaves a -0 in the live text where the file has 0 to the full comparison, which takes it for 0', () => {
    const withZero: Dashboard = { ...body, tiles: [{ name: 't', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 1, height: 1 } }] };
    const text = live('"id":"x"', JSON.stringify(withOwnershipTag(withZero, TAG)).replace('"top":0', '"top":-0'));
    expect(isWrittenText(text, JSON.stringify(withZero), TAG)).toBe(false);
    expect(planDashboard(desired(withZero), JSON.parse(text) as LiveDashboard, RULES).action).toBe('unchanged');
  });

  it('is not fooled by a dashboardMetadata member inside the server metadata, or by text that is not JSON', () => {
    expect(isWrittenText(live('"metadata":{"x":{"dashboardMetadata":{"tags":["managed-by:dashcd"]}}},"id":"x"'), bodyJson, TAG)).toBe(true);
    expect(isWrittenText(`{"metadata":{"x":1,"dashboardMetadata":{"name":"n","owner":"o","tags":["a","managed-by:dashcd"]},"tiles":[]}`, bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"id":"x"', '{"dashboardMetadata":{"name":"n","owner":"o","tags":["a","managed-by:dashcd"]'), bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"id":"x"', '{"dashboardMetadata":{"name":"n'), bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"id":"x"', '{"dashboardMetadata":{"name":"n\\"}","owner":"o","tags":["a","managed-by:dashcd"]},"tiles":[]}'), JSON.stringify({ ...body, dashboardMetadata: { ...body.dashboardMetadata, name: 'n\"}' } }), TAG)).toBe(true);
  });

  it('answers false where the tag is not last, or a body that holds the tag itself meets one more tag', () => {
    expect(isWrittenText(live('"id":"x"', written.replace('["a","managed-by:dashcd"]', '["managed-by:dashcd","a"]')), bodyJson, TAG)).toBe(false);
    const ownTag = JSON.stringify({ ...body, dashboardMetadata: { ...body.dashboardMetadata, tags: [TAG] } });
    expect(isWrittenText(live('"id":"x"', written.replace('["a","managed-by:dashcd"]', '["managed-by:dashcd","a"]')), ownTag, TAG)).toBe(false);
  });

  it('leaves text laid out another way, and bodies that do not start with dashboardMetadata, to the full comparison', () => {
    expect(isWrittenText(live('"id":"x"', written.replace('"tiles":', '"tiles": ')), bodyJson, TAG)).toBe(false);
    expect(isWrittenText(live('"id":"x"', written.replace('"dashboardMetadata":', '"dashboardMetadata": ')), bodyJson, TAG)).toBe(false);
    const tilesFirst = { tiles: [], dashboardMetadata: body.dashboardMetadata };
    expect(isWrittenText(JSON.stringify({ id: 'x', ...withOwnershipTag(tilesFirst as Dashboard, TAG) }), JSON.stringify(tilesFirst), TAG)).toBe(false);
  });
});
