import type { Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { classicDashboards } from '../../../src/kinds/classic-dashboards.js';
import { buildPlan, type PlanChange, type PlanSummary } from '../../../src/plan/build-plan.js';
import type { JsonValue } from '../../../src/plan/json-value.js';
import type { Dashboard } from '../../../src/schema/dashboard.js';
import { commitText, dirtyText, formatValue, patchLines, summaryText } from '../../../src/plan/patch-lines.js';

type PatchedChange = Extract<PlanChange, { action: 'update' }>;

/** An update whose patch and before-values are given; patchLines reads only those two. */
function update(patch: Operation[], before: JsonValue[]): PatchedChange {
  return { action: 'update', id: 'd1', name: 'Hosts', file: 'dashboards/hosts.yaml', desired: { dashboardMetadata: { name: 'Hosts', owner: 'ops' }, tiles: [] }, patch, before };
}

const lines = (op: Operation, before: JsonValue = null): string[] => patchLines(update([op], [before]));

describe('patchLines', () => {
  it('names the whole dashboard when the pointer is the root', () => {
    expect(lines({ op: 'replace', path: '', value: 1 }, 0)).toEqual(['~ (dashboard): 0 → 1']);
  });

  it('shows a scalar replaced by null, or null by a scalar, on one line', () => {
    expect(lines({ op: 'replace', path: '/dashboardMetadata/owner', value: 'ops' }, null)).toEqual(['~ dashboardMetadata.owner: null → "ops"']);
    expect(lines({ op: 'add', path: '/tiles/0/bounds', value: null })).toEqual(['+ tiles[0].bounds: null']);
  });

  it('shows a scalar replaced by an object as a block, the old value marked - and the new one +', () => {
    expect(lines({ op: 'replace', path: '/tiles/0/queries', value: { id: 'A', metric: 'builtin:host.cpu.usage' } }, 'none')).toEqual([
      '~ tiles[0].queries:',
      '-    none',
      '+    id: A',
      '+    metric: builtin:host.cpu.usage',
    ]);
  });

  it('adds a list as a YAML list, null items included, and a tile with its identifying members first', () => {
    expect(lines({ op: 'add', path: '/dashboardMetadata/tags', value: ['ops', null] })).toEqual(['+ dashboardMetadata.tags:', '+    - ops', '+    - null']);
    const tile = { bounds: { top: 0 }, tileType: 'MARKDOWN', markdown: 'Hi', name: 'Notes' };
    expect(lines({ op: 'add', path: '/tiles/2', value: tile })).toEqual([
      '+ tiles[2]:',
      '+    name: Notes',
      '+    tileType: MARKDOWN',
      '+    bounds:',
      '+      top: 0',
      '+    markdown: Hi',
    ]);
  });

  it('removes a scalar on one line and an object as a block', () => {
    expect(lines({ op: 'remove', path: '/dashboardMetadata/tags/1' }, 'x')).toEqual(['- dashboardMetadata.tags[1]: "x"']);
    expect(lines({ op: 'remove', path: '/tiles/1' }, { name: 'Old', tileType: 'HEADER' })).toEqual(['- tiles[1]:', '-    name: Old', '-    tileType: HEADER']);
  });

  it('keeps long text on one YAML line, however long', () => {
    const markdown = 'Hosts in every production zone, with CPU, memory and disk, grouped by the team that owns them';
    expect(lines({ op: 'add', path: '/tiles/0', value: { name: 'Notes', markdown } })).toEqual(['+ tiles[0]:', '+    name: Notes', `+    markdown: ${markdown}`]);
  });

  it('shows multi-line text line by line with trailing blanks trimmed, an empty line as the bare mark', () => {
    expect(lines({ op: 'add', path: '/tiles/0/markdown', value: '# Title  \n\nbody' })).toEqual(['+ tiles[0].markdown:', '+    # Title', '+', '+    body']);
  });

  it('writes a mapping member with a number for a key as ["1"], a list item as [1], and a path the file lacks as pointerToPath reads it', () => {
    const document = { document: { kind: 'dashboard' as const, name: 'Checkout' }, tiles: { '1': { type: 'markdown' } }, layouts: { '1': { x: 0, y: 2 } }, sections: [{ id: 'a', 'odd key': 1 }] };
    const change: PatchedChange = { action: 'update', kind: 'document', id: 'c', name: 'Checkout', file: 'c.yaml', desired: document, patch: [], before: [] };
    const shown = (op: Operation, before: JsonValue = null): string[] => patchLines({ ...change, patch: [op], before: [before] });
    expect(shown({ op: 'replace', path: '/layouts/1/y', value: 2 }, 3)).toEqual(['~ layouts["1"].y: 3 → 2']);
    expect(shown({ op: 'replace', path: '/sections/0/odd key', value: 1 }, 0)).toEqual(['~ sections[0]["odd key"]: 0 → 1']);
    expect(shown({ op: 'remove', path: '/tiles/7/title' }, 'x')).toEqual(['- tiles["7"].title: "x"']);
    expect(shown({ op: 'remove', path: '/gone/7/title' }, 'x')).toEqual(['- gone[7].title: "x"']);
  });

  it('shows an operation diff never produces plainly instead of dropping it', () => {
    expect(lines({ op: 'move', path: '/tiles/1', from: '/tiles/0' })).toEqual(['move tiles[1]']);
  });
});

describe('formatValue', () => {
  it('formats undefined as the word, everything else as compact JSON', () => {
    expect(formatValue(undefined)).toBe('undefined');
    expect(formatValue({ a: [1, 'b'] })).toBe('{"a":[1,"b"]}');
  });
});

describe('patchLines of added values: the file\'s own members', () => {
  const ID = '33333333-3333-4333-8333-333333333333';
  const notes = { name: 'Notes', tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 152 }, markdown: 'hi' };
  // A Data Explorer tile written with few members: the compared form gains configured, isAutoRefreshDisabled,
  // customName, queriesSettings and per-query defaults (service-defaults.ts).
  const written = { name: 'CPU', tileType: 'DATA_EXPLORER', bounds: { top: 0, left: 304, width: 304, height: 152 }, queries: [{ id: 'A', metric: 'builtin:host.cpu.usage' }] };
  const board = (tiles: object[]): Dashboard => ({ dashboardMetadata: { name: 'Hosts', owner: 'ops', tags: ['dashcd'] }, tiles }) as Dashboard;

  function planned(live: object[], desired: object[]): PatchedChange {
    const plan = buildPlan({ desired: [{ id: ID, file: 'd.yaml', name: 'Hosts', body: board(desired) }], live: new Map([[ID, { ...board(live), id: ID }]]), liveOwned: [], ownershipTag: 'dashcd', ignore: [], kind: classicDashboards, target: 't' });
    const change = plan.changes[0];
    if (change?.action !== 'update') throw new Error(`expected an update, got ${change?.action}`);
    return change;
  }

  it('an added tile shows what the file says, not the service defaults the comparison filled in', () => {
    const change = planned([notes], [notes, written]);
    // The comparison itself still holds the defaults: an unchanged live tile carrying them stays unchanged.
    expect(change.patch[0]).toMatchObject({ op: 'add', path: '/tiles/1', value: { configured: true, isAutoRefreshDisabled: false } });
    expect(patchLines(change)).toEqual([
      '+ tiles[1]:',
      '+    name: CPU',
      '+    tileType: DATA_EXPLORER',
      '+    bounds:',
      '+      height: 152',
      '+      left: 304',
      '+      top: 0',
      '+      width: 304',
      '+    queries:',
      '+      - id: A',
      '+        metric: builtin:host.cpu.usage',
    ]);
  });

  it('an added member of a kept tile is shown as written too; a value the file has nowhere is shown as compared', () => {
    const change = planned([notes], [{ ...notes, queries: [{ id: 'A', metric: 'm' }] }]);
    expect(patchLines(change)).toEqual(['+ tiles[0].queries:', '+    - id: A', '+      metric: m']);
    // No file value at the pointer (the helper's file has no tiles): the compared value, whole.
    expect(lines({ op: 'add', path: '/tiles/5', value: { configured: true, name: 'X' } })).toEqual(['+ tiles[5]:', '+    name: X', '+    configured: true']);
    expect(lines({ op: 'replace', path: '/tiles/0', value: { configured: true } }, 'x')).toEqual(['~ tiles[0]:', '-    x', '+    configured: true']);
  });
});

describe('summaryText', () => {
  const summary = (counts: Partial<PlanSummary>): PlanSummary => ({ create: 0, adopt: 0, update: 0, delete: 0, unchanged: 0, orphan: 0, ...counts });

  it('names adoptions and deletions only when there are any, and one orphan in the singular', () => {
    expect(summaryText({ summary: summary({ create: 2, update: 1, unchanged: 3 }), scope: 'full' })).toBe('2 to create, 1 to update, 3 unchanged, 0 orphans');
    expect(summaryText({ summary: summary({ adopt: 1, delete: 2, orphan: 1 }), scope: 'full' })).toBe('0 to create, 1 to adopt, 0 to update, 2 to delete, 0 unchanged, 1 orphan kept');
    expect(summaryText({ summary: summary({ orphan: 3 }), scope: 'full' })).toBe('0 to create, 0 to update, 0 unchanged, 3 orphans kept');
  });

  it('says a selective run did not look for orphans', () => {
    expect(summaryText({ summary: summary({ update: 1, orphan: 2 }), scope: 'partial' })).toBe('0 to create, 1 to update, 0 unchanged, orphans not checked (selective run)');
  });
});

describe('commitText and dirtyText', () => {
  it('names the commit and branch, or a detached HEAD, or a branch without commits', () => {
    expect(commitText({ commit: 'a'.repeat(40), shortCommit: 'aaaaaaa', branch: 'main', dirty: false })).toBe('at commit aaaaaaa on main');
    expect(commitText({ commit: 'a'.repeat(40), shortCommit: 'aaaaaaa', dirty: false })).toBe('at commit aaaaaaa (detached HEAD)');
    expect(commitText({ commit: null, shortCommit: null, branch: 'main', dirty: true })).toBe('(git: no commits yet on main)');
    expect(commitText({ commit: null, shortCommit: null, dirty: true })).toBe('(git: no commits yet)');
  });

  it('names the dashboards folder when git said where it is', () => {
    expect(dirtyText({ commit: null, shortCommit: null, dirty: true, dir: 'dashboards' })).toBe('uncommitted changes in dashboards/');
    expect(dirtyText({ commit: null, shortCommit: null, dirty: true })).toBe('uncommitted changes in the dashboards folder');
    expect(dirtyText({ commit: null, shortCommit: null, dirty: true, dir: 'ops/dashboards', uncommitted: { folder: false, config: 'ops/dashcd.yaml' } })).toBe('uncommitted changes in ops/dashcd.yaml');
    expect(dirtyText({ commit: null, shortCommit: null, dirty: true, dir: 'dashboards', uncommitted: { folder: true, config: 'dashcd.yml' } })).toBe('uncommitted changes in dashboards/ and dashcd.yml');
  });
});
