import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { buildPlan, findOrphans, hasChanges, type BuildPlanInput, type DesiredInput, type PlanChange } from '../../../src/plan/build-plan.js';
import { DEFAULT_OWNERSHIP_TAG } from '../../../src/config/project-config.js';
import { isOwned, withOwnershipTag, withoutOwnershipTag } from '../../../src/dashboards/ownership.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';

const TAG = DEFAULT_OWNERSHIP_TAG;
const ID_A = '11111111-1111-4111-8111-111111111111';
const ID_B = '22222222-2222-4222-8222-222222222222';
const ID_C = '33333333-3333-4333-8333-333333333333';

function dashboard(name: string, tileNames: string[], tags: string[] = []): Dashboard {
  return {
    dashboardMetadata: { name, owner: 'ops', tags },
    tiles: tileNames.map((tileName, i) => ({
      name: tileName,
      tileType: 'MARKDOWN' as const,
      bounds: { top: i * 38, left: 0, width: 304, height: 38 },
      markdown: `## ${tileName}`,
    })),
  };
}

function desired(id: string, file: string, body: Dashboard): DesiredInput {
  return { id, file, name: body.dashboardMetadata.name, body };
}

/** What the service returns after apply wrote `body`: id, metadata, the tag, and a few defaults. */
function asLive(id: string, body: Dashboard): Dashboard {
  const tagged = withOwnershipTag(body, TAG);
  return {
    id,
    metadata: { configurationVersions: [3], clusterVersion: '1.280.0' },
    ...tagged,
    dashboardMetadata: { ...tagged.dashboardMetadata, shared: false, popularity: 4 },
    tiles: tagged.tiles.map((t) => ({ ...t, configured: true, isAutoRefreshDisabled: false, tileFilter: {} })),
  };
}

function plan(overrides: Partial<BuildPlanInput>) {
  return buildPlan({ desired: [], live: new Map(), liveOwned: [], ownershipTag: TAG, ignore: [], kind: classicDashboards, target: 'http://t', ...overrides });
}

const TILES = ['Title', 'Hosts', 'Memory', 'CPU'];

describe('buildPlan', () => {
  it('plans an identical dashboard as unchanged', () => {
    const body = dashboard('Hosts', TILES, ['infra']);
    const result = plan({ desired: [desired(ID_A, 'dashboards/a.yaml', body)], live: new Map([[ID_A, asLive(ID_A, body)]]) });
    expect(result.changes).toEqual([{ action: 'unchanged', id: ID_A, name: 'Hosts', file: 'dashboards/a.yaml' }]);
    expect(hasChanges(result)).toBe(false);
  });

  it('plans key order and tag order differences as unchanged', () => {
    const body = dashboard('Hosts', TILES, ['b', 'a']);
    const live = asLive(ID_A, dashboard('Hosts', TILES, ['a', TAG, 'b']));
    const reordered = { tiles: live.tiles, id: live.id, dashboardMetadata: live.dashboardMetadata };
    const result = plan({ desired: [desired(ID_A, 'a.yaml', body)], live: new Map([[ID_A, reordered as Dashboard]]) });
    expect(result.changes.map((c) => c.action)).toEqual(['unchanged']);
  });

  it('plans one tile name edit as exactly one replace at /tiles/3/name', () => {
    const live = asLive(ID_A, dashboard('Hosts', TILES));
    const edited = dashboard('Hosts', TILES);
    edited.tiles[3] = { ...edited.tiles[3]!, name: 'CPU usage' };
    const [change] = plan({ desired: [desired(ID_A, 'a.yaml', edited)], live: new Map([[ID_A, live]]) }).changes;
    expect(change?.action).toBe('update');
    if (change?.action !== 'update') return;
    expect(change.patch).toEqual([{ op: 'replace', path: '/tiles/3/name', value: 'CPU usage' }]);
    expect(change.before).toEqual(['CPU']);
  });

  it('plans a deleted tile as one remove and an inserted tile as one add, not a cascade over later tiles', () => {
    const live = asLive(ID_A, dashboard('Hosts', TILES));
    const removed = { ...live, tiles: live.tiles.slice(1) };
    const [change] = plan({ desired: [desired(ID_A, 'a.yaml', removed)], live: new Map([[ID_A, live]]) }).changes;
    expect(change?.action === 'update' && change.patch).toEqual([{ op: 'remove', path: '/tiles/0' }]);
    const inserted = { ...live, tiles: [...live.tiles.slice(0, 2), { ...live.tiles[0]!, name: 'New' }, ...live.tiles.slice(2)] };
    const [insert] = plan({ desired: [desired(ID_A, 'a.yaml', inserted)], live: new Map([[ID_A, live]]) }).changes;
    expect(insert?.action === 'update' && insert.patch.map((op) => `${op.op} ${op.path}`)).toEqual(['add /tiles/2']);
  });

  it('pairs an edited tile by name next to a deleted one, so the edit is shown member by member', () => {
    const live = asLive(ID_A, dashboard('Hosts', TILES));
    const edited = { ...live, tiles: [live.tiles[1]!, { ...live.tiles[2]!, markdown: 'changed' }, live.tiles[3]!] };
    const [change] = plan({ desired: [desired(ID_A, 'a.yaml', edited)], live: new Map([[ID_A, live]]) }).changes;
    expect(change?.action === 'update' && change.patch).toEqual([
      { op: 'remove', path: '/tiles/0' },
      { op: 'replace', path: '/tiles/1/markdown', value: 'changed' },
    ]);
  });

  it('writes the desired body with the id first and the ownership tag added once', () => {
    const body = { ...dashboard('Hosts', ['x'], ['team', TAG]), id: 'stale', metadata: { clusterVersion: 'x' } };
    const [change] = plan({ desired: [desired(ID_A, 'a.yaml', body)] }).changes;
    expect(change).toMatchObject({ action: 'create', id: ID_A, name: 'Hosts', file: 'a.yaml' });
    if (change?.action !== 'create') return;
    expect(Object.keys(change.desired)).toEqual(['id', 'dashboardMetadata', 'tiles']);
    expect(change.desired.id).toBe(ID_A);
    expect((change.desired as Dashboard).dashboardMetadata.tags).toEqual(['team', TAG]);
  });

  it('plans a live dashboard without the ownership tag as adopt, whose patch adds the tag, even when the content is equal', () => {
    const body = dashboard('Hosts', ['x']);
    const live = { ...body, id: ID_A };
    const same = plan({ desired: [desired(ID_A, 'a.yaml', body)], live: new Map([[ID_A, live]]) });
    expect(same.changes[0]).toMatchObject({ action: 'adopt', patch: [{ op: 'add', path: '/dashboardMetadata/tags', value: [TAG] }] });
    expect(same.summary.adopt).toBe(1);
    expect(hasChanges(same)).toBe(true);
    const renamed = dashboard('Hosts renamed', ['x']);
    const [change] = plan({ desired: [desired(ID_A, 'a.yaml', renamed)], live: new Map([[ID_A, live]]) }).changes;
    expect(change?.action === 'adopt' && change.patch).toEqual([
      { op: 'replace', path: '/dashboardMetadata/name', value: 'Hosts renamed' },
      { op: 'add', path: '/dashboardMetadata/tags', value: [TAG] },
    ]);
    expect(change?.action === 'adopt' && (change.desired as Dashboard).dashboardMetadata.tags).toEqual([TAG]);
  });

  it('plans a dashboard that differs only in ignored pointers as unchanged', () => {
    const live = asLive(ID_A, dashboard('Hosts', TILES));
    const moved = dashboard('Hosts', TILES);
    moved.tiles = moved.tiles.map((t) => ({ ...t, bounds: { top: 0, left: 0, width: 1, height: 1 } }));
    const input = { desired: [desired(ID_A, 'a.yaml', moved)], live: new Map([[ID_A, live]]) };
    expect(plan(input).changes[0]?.action).toBe('update');
    expect(plan({ ...input, ignore: ['/tiles/*/bounds'] }).changes[0]?.action).toBe('unchanged');
  });

  it('plans a desired dashboard without a live one as create', () => {
    const result = plan({ desired: [desired(ID_A, 'a.yaml', dashboard('New', ['x']))] });
    expect(result.changes.map((c) => c.action)).toEqual(['create']);
    expect(result.summary).toEqual({ create: 1, adopt: 0, update: 0, delete: 0, unchanged: 0, orphan: 0 });
    expect(hasChanges(result)).toBe(true);
  });

  it('lists owned live dashboards no file claims as orphans, but not in a partial scope', () => {
    const input = {
      desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))],
      liveOwned: [
        { id: ID_A, name: 'Kept' },
        { id: ID_B, name: 'Gone', owner: 'ops' },
      ],
    };
    const full = plan(input);
    expect(full.changes.filter((c) => c.action === 'orphan')).toEqual([{ action: 'orphan', id: ID_B, name: 'Gone', owner: 'ops' }]);
    expect(full.summary.orphan).toBe(1);
    expect(hasChanges(plan({ liveOwned: input.liveOwned }))).toBe(false);
    expect(plan({ ...input, scope: 'partial' }).changes.map((c) => c.action)).toEqual(['create']);
  });

  it('with pruning on, plans owned orphans as delete, counts them as changes, and never in a partial scope', () => {
    const input = {
      desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))],
      liveOwned: [{ id: ID_B, name: 'Gone', owner: 'ops' }],
      prune: { maxDelete: 5, from: 'flag' as const },
    };
    const pruned = plan(input);
    expect(pruned.changes.filter((c) => c.action === 'delete')).toEqual([{ action: 'delete', id: ID_B, name: 'Gone', owner: 'ops' }]);
    expect(pruned.summary).toMatchObject({ delete: 1, orphan: 0 });
    expect(pruned.prune).toStrictEqual({ enabled: true });
    expect(hasChanges(plan({ ...input, desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))], live: new Map([[ID_A, asLive(ID_A, dashboard('Kept', ['x']))]]) }))).toBe(true);
    const partial = plan({ ...input, scope: 'partial' });
    expect(partial.changes.map((c) => c.action)).toEqual(['create']);
    expect(partial.prune).toEqual({ enabled: false });
  });

  it('carries the prune guard refusal in the plan: more deletions than maxDelete, or none of the files left', () => {
    const liveOwned = [{ id: ID_B, name: 'Gone' }, { id: ID_C, name: 'Also gone' }];
    expect(plan({ desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))], liveOwned, prune: { maxDelete: 1, from: 'flag' } }).prune.refused).toMatch(/refusing to prune 2 dashboards: more than --max-delete 1/);
    expect(plan({ desired: [], liveOwned, prune: { maxDelete: 100, from: 'flag' } }).prune.refused).toMatch(/no dashboards/);
    expect(plan({ desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))], liveOwned, prune: { maxDelete: 2, from: 'flag' } }).prune).toStrictEqual({ enabled: true });
    // Without pruning, or in a partial scope, nothing is deleted, so there is nothing to refuse.
    expect(plan({ desired: [], liveOwned }).prune).toStrictEqual({ enabled: false });
    expect(plan({ desired: [], liveOwned, scope: 'partial', prune: { maxDelete: 0, from: 'flag' } }).prune).toStrictEqual({ enabled: false });
  });

  it('sorts changes by action, file and id whatever the input order, so output is stable', () => {
    const body = dashboard('D', ['x']);
    const edited = dashboard('D', ['y']);
    const inputs = [
      desired(ID_C, 'z.yaml', body),
      desired(ID_B, 'b.yaml', edited),
      desired(ID_A, 'b.yaml', body),
      desired('44444444-4444-4444-8444-444444444444', 'a.yaml', body),
    ];
    const live = new Map([[ID_C, asLive(ID_C, body)], [ID_B, asLive(ID_B, body)]]);
    const liveOwned = [{ id: '99999999-9999-4999-8999-999999999999', name: 'o2' }, { id: '88888888-8888-4888-8888-888888888888', name: 'o1' }];
    const key = (c: PlanChange) => `${c.action}:${'file' in c ? c.file : ''}:${c.id.slice(0, 1)}`;
    const forward = plan({ desired: inputs, live, liveOwned }).changes.map(key);
    const backward = plan({ desired: [...inputs].reverse(), live, liveOwned: [...liveOwned].reverse() }).changes.map(key);
    expect(forward).toEqual(['create:a.yaml:4', 'create:b.yaml:1', 'update:b.yaml:2', 'unchanged:z.yaml:3', 'orphan::8', 'orphan::9']);
    expect(backward).toEqual(forward);
  });

  it('plans dashboards whose members are named __proto__ or constructor.prototype like any other', () => {
    const withKeys = (value: string) =>
      JSON.parse(`{"dashboardMetadata":{"name":"P","owner":"o","tags":["${TAG}"]},"tiles":[],"__proto__":{"x":"${value}"},"constructor":{"prototype":"${value}"}}`) as Dashboard;
    const [change] = plan({ desired: [desired(ID_A, 'p.yaml', withKeys('new'))], live: new Map([[ID_A, withKeys('old')]]) }).changes;
    expect(change?.action === 'update' && change.patch.map((op) => op.path)).toEqual(['/__proto__/x', '/constructor/prototype']);
    expect(change?.action === 'update' && change.before).toEqual(['old', 'old']);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('reports changes for a plan with as many creates as updates (the sum, not the difference, counts)', () => {
    const live = asLive(ID_B, dashboard('Hosts', TILES));
    const result = plan({
      desired: [desired(ID_A, 'a.yaml', dashboard('New', ['x'])), desired(ID_B, 'b.yaml', dashboard('Hosts renamed', TILES))],
      live: new Map([[ID_B, live]]),
    });
    expect(result.summary).toEqual({ create: 1, adopt: 0, update: 1, delete: 0, unchanged: 0, orphan: 0 });
    expect(hasChanges(result)).toBe(true);
    expect(hasChanges(plan({ desired: [desired(ID_B, 'b.yaml', dashboard('Hosts renamed', TILES))], live: new Map([[ID_B, live]]) }))).toBe(true);
  });

  it('reports no changes for kept orphans, a change for a delete, and none when pruning finds no orphans', () => {
    const body = dashboard('Hosts', TILES);
    const unchanged = plan({ desired: [desired(ID_A, 'a.yaml', body)], live: new Map([[ID_A, asLive(ID_A, body)]]), prune: { maxDelete: 5, from: 'flag' } });
    expect(unchanged.summary).toEqual({ create: 0, adopt: 0, update: 0, delete: 0, unchanged: 1, orphan: 0 });
    expect(hasChanges(unchanged)).toBe(false);
    expect(hasChanges(plan({ liveOwned: [{ id: ID_B, name: 'Gone' }] }))).toBe(false);
    expect(hasChanges(plan({ desired: [desired(ID_A, 'a.yaml', body)], liveOwned: [{ id: ID_B, name: 'Gone' }], live: new Map([[ID_A, asLive(ID_A, body)]]), prune: { maxDelete: 5, from: 'flag' } }))).toBe(true);
  });

  it('claims live dashboards by id case-insensitively and lists each orphan once, without an owner it lacks', () => {
    const result = plan({
      desired: [desired(ID_A, 'a.yaml', dashboard('Kept', ['x']))],
      liveOwned: [
        { id: ID_A.toUpperCase(), name: 'Kept' },
        { id: ID_B, name: 'Gone' },
        { id: ID_B.toUpperCase(), name: 'Gone again' },
      ],
    });
    expect(result.changes.filter((c) => c.action === 'orphan')).toStrictEqual([{ action: 'orphan', id: ID_B, name: 'Gone' }]);
    expect(result.summary).toEqual({ create: 1, adopt: 0, update: 0, delete: 0, unchanged: 0, orphan: 1 });
  });

  it('counts every action in the summary', () => {
    const body = dashboard('D', ['x']);
    const result = plan({
      desired: [desired(ID_A, 'a.yaml', body), desired(ID_B, 'b.yaml', dashboard('D', ['y'])), desired(ID_C, 'c.yaml', body)],
      live: new Map([[ID_B, asLive(ID_B, body)], [ID_C, asLive(ID_C, body)]]),
      liveOwned: [{ id: '99999999-9999-4999-8999-999999999999', name: 'o' }],
    });
    expect(result.summary).toEqual({ create: 1, adopt: 0, update: 1, delete: 0, unchanged: 1, orphan: 1 });
    expect(result.scope).toBe('full');
    expect(plan({ scope: 'partial' }).scope).toBe('partial');
  });

  it('carries the target and git info into the plan', () => {
    const git = { commit: 'a'.repeat(40), shortCommit: 'aaaaaaa', branch: 'main', dirty: true };
    expect(plan({ git, target: 'http://x/e/local' })).toMatchObject({ git, target: 'http://x/e/local' });
    expect('git' in plan({})).toBe(false);
  });
});

describe('ignore rules in what a write sends', () => {
  it('keeps the live value at what a rule matches, and adds the ownership mark after: an adopt under a rule over the tags lands', () => {
    const file = dashboard('Hosts', ['A'], ['team']);
    const live = { ...file, id: ID_A, dashboardMetadata: { ...file.dashboardMetadata, tags: ['team', 'from-app'] } };
    const adopt = plan({ desired: [desired(ID_A, 'a.yaml', file)], live: new Map([[ID_A, live]]), ignore: ['/dashboardMetadata/tags'] }).changes[0];
    expect(adopt?.action).toBe('adopt');
    const sent = adopt && 'desired' in adopt ? (adopt.desired as Dashboard) : undefined;
    expect(sent?.dashboardMetadata.tags).toEqual(['team', 'from-app', TAG]);
    expect(adopt && 'json' in adopt ? adopt.json : undefined).toBeUndefined();
  });

  it('sends the file as it is without rules, or when they match nothing live has', () => {
    const file = dashboard('Hosts', ['A'], ['team']);
    const live = { ...file, id: ID_A };
    for (const ignore of [[], ['/nothing']]) {
      const adopt = plan({ desired: [desired(ID_A, 'a.yaml', file)], live: new Map([[ID_A, live]]), ignore }).changes[0];
      expect(adopt && 'desired' in adopt ? adopt.desired.dashboardMetadata : undefined).toEqual({ ...file.dashboardMetadata, tags: ['team', TAG] });
    }
  });
});

describe('orphans and letter case', () => {
  it("matches a dashboard's UUID in any case and a document's id exactly, as the real service keeps document ids apart", () => {
    const upper = ID_B.toUpperCase();
    expect(findOrphans([{ id: upper }], [{ id: ID_B, name: 'Kept' }], 'orphan')).toEqual([]);
    expect(findOrphans([{ id: 'Team-A', kind: 'document' }], [{ id: 'team-a', name: 'Other', kind: 'document' }], 'orphan')).toEqual([{ action: 'orphan', id: 'team-a', name: 'Other', kind: 'document' }]);
    expect(findOrphans([], [{ id: 'team-a', name: 'A', kind: 'document' }, { id: 'Team-A', name: 'B', kind: 'document' }], 'orphan').map((o) => o.id)).toEqual(['team-a', 'Team-A']);
  });
});

describe('ownership', () => {
  it('adds the tag without duplicating it and without modifying the input', () => {
    const body = dashboard('D', [], ['a']);
    const tagged = withOwnershipTag(body, TAG);
    expect(tagged.dashboardMetadata.tags).toEqual(['a', TAG]);
    expect(body.dashboardMetadata.tags).toEqual(['a']);
    expect(withOwnershipTag(tagged, TAG).dashboardMetadata.tags).toEqual(['a', TAG]);
  });

  it('removes the tag for pull, dropping an emptied tag list', () => {
    expect(withoutOwnershipTag(dashboard('D', [], ['a', TAG]), TAG).dashboardMetadata.tags).toEqual(['a']);
    expect('tags' in withoutOwnershipTag(dashboard('D', [], [TAG]), TAG).dashboardMetadata).toBe(false);
  });

  it('recognises owned dashboards only by the exact tag', () => {
    expect(isOwned({ dashboardMetadata: { tags: [TAG] } }, TAG)).toBe(true);
    expect(isOwned({ dashboardMetadata: { tags: ['managed-by:other'] } }, TAG)).toBe(false);
    expect(isOwned({ dashboardMetadata: { tags: null } }, TAG)).toBe(false);
    expect(isOwned({}, TAG)).toBe(false);
  });
});
