import { describe, expect, it } from 'vitest';
import { alignArrays, commonSubsequence } from '../../../src/plan/align-arrays.js';
import type { JsonValue } from '../../../src/plan/json-value.js';

/* Steps are written out by hand: what a reviewer should see for each edit, not what the code happens to produce. */

const pair = (a: number, b: number) => ({ kind: 'pair', a, b });
const remove = (a: number) => ({ kind: 'remove', a });
const add = (b: number) => ({ kind: 'add', b });

describe('alignArrays: equal items anchor', () => {
  it('keeps equal items as pairs and removes or adds the rest around them', () => {
    expect(alignArrays(['a', 'b', 'c'], ['a', 'c'])).toEqual([pair(0, 0), remove(1), pair(2, 1)]);
    expect(alignArrays(['a', 'c'], ['a', 'b', 'c'])).toEqual([pair(0, 0), add(1), pair(1, 2)]);
    expect(alignArrays([], [])).toEqual([]);
    expect(alignArrays([], ['a'])).toEqual([add(0)]);
    expect(alignArrays(['a'], [])).toEqual([remove(0)]);
  });

  it('matches equal objects whatever their key order', () => {
    const tile = (name: string) => ({ name, tileType: 'MARKDOWN', markdown: `# ${name}` });
    const reordered = { markdown: '# B', tileType: 'MARKDOWN', name: 'B' };
    expect(alignArrays([tile('A'), tile('B')], [reordered])).toEqual([remove(0), pair(1, 0)]);
  });

  it('deleting the first of many tiles is one remove and pairs every later tile with itself', () => {
    const tiles = ['Title', 'Hosts', 'Memory', 'CPU'].map((name) => ({ name, tileType: 'MARKDOWN' }));
    expect(alignArrays(tiles, tiles.slice(1))).toEqual([remove(0), pair(1, 0), pair(2, 1), pair(3, 2)]);
  });
});

describe('alignArrays: identity pairs edited items between anchors', () => {
  it('pairs data explorer queries by id, not by position', () => {
    const from = [{ id: 'A', metric: 'builtin:host.cpu.usage' }, { id: 'B', metric: 'builtin:host.mem.usage' }];
    const to = [{ id: 'B', metric: 'builtin:host.mem.avail.pct' }];
    expect(alignArrays(from, to)).toEqual([remove(0), pair(1, 0)]);
  });

  it('tells a numeric id from the same id as a string', () => {
    expect(alignArrays([{ id: 1, v: 'x' }, { id: '2', v: 'x' }], [{ id: '1', v: 'y' }, { id: 2, v: 'y' }])).toEqual([pair(0, 0), pair(1, 1)]);
    expect(alignArrays([{ id: 'x', v: 1 }, { id: 2, v: 1 }], [{ id: 2, v: 2 }])).toEqual([remove(0), pair(1, 0)]);
  });

  it('gives an item with any other id type no identity', () => {
    expect(alignArrays([{ id: true, v: 1 }, { id: false, v: 1 }], [{ id: false, v: 2 }])).toEqual([pair(0, 0), remove(1)]);
  });

  it('never pairs two items of different ids by position: a notebook section replaced by another is one remove and one add', () => {
    const intro = { id: 'intro', type: 'markdown', markdown: '# Triage' };
    expect(alignArrays([intro, { id: 'logs', type: 'dql', title: 'Logs' }], [intro, { id: 'traces', type: 'dql', title: 'Logs' }])).toEqual([pair(0, 0), remove(1), add(1)]);
    expect(alignArrays([{ id: 'a', v: 1 }], [{ v: 2 }])).toEqual([pair(0, 0)]);
  });

  it('pairs visual config rules by matcher', () => {
    const from = [{ matcher: 'A:', properties: { color: 'DEFAULT' } }, { matcher: 'B:', properties: { color: 'DEFAULT' } }];
    expect(alignArrays(from, [{ matcher: 'B:', properties: { color: 'RED' } }])).toEqual([remove(0), pair(1, 0)]);
  });

  it('pairs tiles by name and tile type together', () => {
    const from = [{ name: 'CPU', tileType: 'MARKDOWN', markdown: '1' }, { name: 'Memory', tileType: 'MARKDOWN', markdown: '1' }];
    expect(alignArrays(from, [{ name: 'Memory', tileType: 'MARKDOWN', markdown: '2' }])).toEqual([remove(0), pair(1, 0)]);
    // Same name, other tile type: not the same tile, so the rest pairs by position — a tile only with one that still
    // shares most of its members (here none but the type: removed and added, never shown as an edit of the other).
    const mixed: JsonValue[] = [{ name: 'Hosts', tileType: 'MARKDOWN', markdown: '1' }, { name: 'CPU', tileType: 'HEADER' }];
    expect(alignArrays(mixed, [{ name: 'CPU', tileType: 'MARKDOWN', markdown: '2' }])).toEqual([remove(0), add(0), remove(1)]);
    const renamed: JsonValue[] = [{ name: 'Hosts', tileType: 'MARKDOWN', markdown: '1' }];
    expect(alignArrays(renamed, [{ name: 'All hosts', tileType: 'MARKDOWN', markdown: '1' }])).toEqual([pair(0, 0)]);
    // A name without a tile type is an identity of its own.
    expect(alignArrays([{ name: 'x', v: 1 }, { name: 'y', v: 1 }], [{ name: 'y', v: 2 }])).toEqual([remove(0), pair(1, 0)]);
  });

  it('prefers id over matcher over name', () => {
    const from = [{ id: 'A', matcher: 'M1', name: 'N1' }, { id: 'B', matcher: 'M2', name: 'N2' }];
    expect(alignArrays(from, [{ id: 'B', matcher: 'M1', name: 'N1', v: 1 }])).toEqual([remove(0), pair(1, 0)]);
    const rules = [{ matcher: 'M1', name: 'N1' }, { matcher: 'M2', name: 'N2' }];
    expect(alignArrays(rules, [{ matcher: 'M2', name: 'N1', v: 1 }])).toEqual([remove(0), pair(1, 0)]);
  });

  it('pairs by identity only inside the gap between two equal anchors (items of other ids are then removed and added)', () => {
    const from = ['start', { id: 'A', v: 1 }, 'middle', { id: 'B', v: 1 }, 'end'];
    const to = ['start', { id: 'B', v: 2 }, 'middle', { id: 'A', v: 2 }, 'end'];
    expect(alignArrays(from, to)).toEqual([pair(0, 0), remove(1), add(1), pair(2, 2), remove(3), add(3), pair(4, 4)]);
  });
});

describe('alignArrays: what is left pairs by position', () => {
  it('pairs containers by position but shows a changed scalar as removed and added', () => {
    expect(alignArrays(['x', 'k'], ['y', 'k'])).toEqual([remove(0), add(0), pair(1, 1)]);
    expect(alignArrays([{ v: 1 }, 'k'], [{ v: 2 }, 'k'])).toEqual([pair(0, 0), pair(1, 1)]);
    expect(alignArrays([[1], 'k'], [[2], 'k'])).toEqual([pair(0, 0), pair(1, 1)]);
    expect(alignArrays([{ v: 1 }], ['y'])).toEqual([remove(0), add(0)]);
    expect(alignArrays(['x'], [{ v: 2 }])).toEqual([remove(0), add(0)]);
    expect(alignArrays([null], [{ v: 2 }])).toEqual([remove(0), add(0)]);
  });

  it('shows each changed scalar of a run as removed and added at its own index', () => {
    expect(alignArrays(['a', 'b', 'k'], ['c', 'd', 'k'])).toEqual([remove(0), add(0), remove(1), add(1), pair(2, 2)]);
  });

  it('never pairs an array with an object', () => {
    expect(alignArrays([[1], 'k'], [{ v: 1 }, 'k'])).toEqual([remove(0), add(0), pair(1, 1)]);
    expect(alignArrays([{ v: 1 }, 'k'], [[1], 'k'])).toEqual([remove(0), add(0), pair(1, 1)]);
  });

  it('pairs a tile only with a tile sharing more than half of all members either has', () => {
    const bounds = { top: 0, left: 0, width: 304, height: 152 };
    // Four members, two the same (type and bounds): half is not more than half.
    const half = alignArrays([{ name: 'CPU', tileType: 'MARKDOWN', markdown: '# CPU', bounds }], [{ name: 'Disk', tileType: 'MARKDOWN', markdown: '# Disk', bounds }]);
    expect(half).toEqual([remove(0), add(0)]);
    // Three of four the same: a renamed tile.
    const most = alignArrays([{ name: 'CPU', tileType: 'MARKDOWN', markdown: '# CPU', bounds }], [{ name: 'Disk', tileType: 'MARKDOWN', markdown: '# CPU', bounds }]);
    expect(most).toEqual([pair(0, 0)]);
    // Members only one side has count against pairing: here one of four the same.
    const onlyOneSide = alignArrays([{ name: 'CPU', tileType: 'MARKDOWN', markdown: '# CPU', configured: true }], [{ name: 'Disk', tileType: 'MARKDOWN' }]);
    expect(onlyOneSide).toEqual([remove(0), add(0)]);
  });

  it('gives a tile without a name no identity, so unnamed tiles pair by how alike they are', () => {
    const from = [{ tileType: 'MARKDOWN', markdown: '# CPU', bounds: { top: 0 } }];
    expect(alignArrays(from, [{ tileType: 'MARKDOWN', markdown: '# Disk', bounds: { top: 38 } }])).toEqual([remove(0), add(0)]);
  });

  it('pairs a tile with an object that is not one by position, as any two objects', () => {
    const tile = { name: 'CPU', tileType: 'MARKDOWN', markdown: '# CPU' };
    expect(alignArrays([tile], [{ markdown: '# Disk' }])).toEqual([pair(0, 0)]);
    expect(alignArrays([{ markdown: '# Disk' }], [tile])).toEqual([pair(0, 0)]);
  });

  it('removes the surplus of a longer source and adds the surplus of a longer target, after the pairs', () => {
    expect(alignArrays([{ v: 1 }, { v: 2 }, { v: 3 }], [{ v: 4 }])).toEqual([pair(0, 0), remove(1), remove(2)]);
    expect(alignArrays([{ v: 1 }], [{ v: 4 }, { v: 5 }, { v: 6 }])).toEqual([pair(0, 0), add(1), add(2)]);
  });
});

describe('commonSubsequence', () => {
  it('finds a longest common subsequence, not a greedy one', () => {
    expect(commonSubsequence(['x', 'a', 'b', 'c'], ['a', 'b', 'c', 'x'])).toEqual([[1, 0], [2, 1], [3, 2]]);
    expect(commonSubsequence(['a', 'x', 'y', 'b', 'c'], ['b', 'c', 'a'])).toEqual([[3, 0], [4, 1]]);
    expect(commonSubsequence(['p', 'q', 'a', 'b', 'c'], ['a', 'b', 'c', 'p', 'q'])).toEqual([[2, 0], [3, 1], [4, 2]]);
  });

  it('on a tie drops from the first array first (a removal is shown before an addition)', () => {
    expect(commonSubsequence(['a', 'b'], ['b', 'a'])).toEqual([[1, 0]]);
  });

  it('pairs common leading and trailing items with their first and last occurrences', () => {
    expect(commonSubsequence(['x', 'x'], ['x'])).toEqual([[0, 0]]);
    expect(commonSubsequence(['p', 'a', 's'], ['p', 'b', 's'])).toEqual([[0, 0], [2, 2]]);
    expect(commonSubsequence(['a', 'm', 'z'], ['b', 'm', 'z'])).toEqual([[1, 1], [2, 2]]);
    expect(commonSubsequence(['a', 'b'], ['a', 'b'])).toEqual([[0, 0], [1, 1]]);
    expect(commonSubsequence(['a', 'b', 'c'], ['a', 'c'])).toEqual([[0, 0], [2, 1]]);
  });

  it('never matches undefined keys', () => {
    expect(commonSubsequence([undefined, 'a'], [undefined, 'a'])).toEqual([[1, 1]]);
    expect(commonSubsequence(['a', undefined], ['a', undefined])).toEqual([[0, 0]]);
    expect(commonSubsequence(['b', undefined, 'a'], [undefined, 'c', 'a'])).toEqual([[2, 2]]);
  });

  it('pairs nothing past 4,000,000 cells (arrays then align by position)', () => {
    const side = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
    // 2001 × 2000 cells with one common item and no common ends: over the limit, so not searched.
    expect(commonSubsequence([...side('a', 2000), 'm'], ['m', ...side('b', 1999)])).toEqual([]);
  });
});
