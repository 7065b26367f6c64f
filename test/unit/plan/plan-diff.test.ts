import { describe, expect, it } from 'vitest';
import { commonSubsequence } from '../../../src/plan/align-arrays.js';
import { diffJson } from '../../../src/plan/diff.js';

describe('diffJson', () => {
  it('is empty for equal values', () => {
    expect(diffJson({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual({ patch: [], before: [] });
  });

  it('adds, removes and replaces object members in key order, escaping ~ and /', () => {
    expect(diffJson({ 'a/b': 1, c: 2, 'd~': 3 }, { c: 5, 'd~': 3, e: 4 })).toEqual({
      patch: [
        { op: 'remove', path: '/a~1b' },
        { op: 'replace', path: '/c', value: 5 },
        { op: 'add', path: '/e', value: 4 },
      ],
      before: [1, 2, null],
    });
  });

  it('escapes ~ as ~0 and / as ~1 in paths (RFC 6901), ~ before / so "~1" in a key stays a literal', () => {
    expect(diffJson({ m: { 'a~b': 1, 'c/d': 1, 'e~1f': 1 } }, { m: { 'a~b': 2, 'c/d': 2, 'e~1f': 2 } }).patch).toEqual([
      { op: 'replace', path: '/m/a~0b', value: 2 },
      { op: 'replace', path: '/m/c~1d', value: 2 },
      { op: 'replace', path: '/m/e~01f', value: 2 },
    ]);
    expect(diffJson({}, { '~/': 1 }).patch).toEqual([{ op: 'add', path: '/~0~1', value: 1 }]);
  });

  it('lists member changes in code-unit key order whatever the order in either object', () => {
    expect(diffJson({ tiles: 1, dashboardMetadata: 1, Zeta: 1 }, { Zeta: 2, tiles: 2, dashboardMetadata: 2 }).patch.map((op) => op.path)).toEqual([
      '/Zeta',
      '/dashboardMetadata',
      '/tiles',
    ]);
  });

  it('compares scalars by their JSON: 1 and "1", null and false, 0 and "" differ; 0 and -0 (both written 0) do not', () => {
    expect(diffJson({ a: 0, b: 1, c: null, d: 0 }, { a: -0, b: '1', c: false, d: '' })).toEqual({
      patch: [
        { op: 'replace', path: '/b', value: '1' },
        { op: 'replace', path: '/c', value: false },
        { op: 'replace', path: '/d', value: '' },
      ],
      before: [1, null, 0],
    });
  });

  it('numbers paths of kept and added items as in the target, removed ones as in the array patched so far', () => {
    expect(diffJson({ l: ['a', 'b', 'c', 'd'] }, { l: ['x', 'b', 'd', 'y'] })).toEqual({
      patch: [
        { op: 'remove', path: '/l/0' },
        { op: 'add', path: '/l/0', value: 'x' },
        { op: 'remove', path: '/l/2' },
        { op: 'add', path: '/l/3', value: 'y' },
      ],
      before: ['a', null, 'c', null],
    });
  });

  it('removes set members by value: dropping one tag is one remove', () => {
    expect(diffJson({ tags: ['a', 'b', 'c'] }, { tags: ['a', 'c', 'd'] }).patch).toEqual([
      { op: 'remove', path: '/tags/1' },
      { op: 'add', path: '/tags/2', value: 'd' },
    ]);
  });

  it('shows a changed scalar list item as removed and added, and a changed object item member by member', () => {
    expect(diffJson({ tags: ['a', 'x'] }, { tags: ['a', 'y'] })).toEqual({
      patch: [{ op: 'remove', path: '/tags/1' }, { op: 'add', path: '/tags/1', value: 'y' }],
      before: ['x', null],
    });
    expect(diffJson({ l: [{ k: 1, v: 1 }] }, { l: [{ k: 1, v: 2 }] }).patch).toEqual([{ op: 'replace', path: '/l/0/v', value: 2 }]);
  });

  it('pairs array items by query id, so a reordered-and-edited query is a member change', () => {
    const from = { queries: [{ id: 'A', metric: 'x' }, { id: 'B', metric: 'y' }] };
    const to = { queries: [{ id: 'B', metric: 'y' }, { id: 'C', metric: 'z' }] };
    expect(diffJson(from, to).patch).toEqual([
      { op: 'remove', path: '/queries/0' },
      { op: 'add', path: '/queries/1', value: { id: 'C', metric: 'z' } },
    ]);
  });

  it('replaces a value whose type changes', () => {
    expect(diffJson({ a: [1] }, { a: { 0: 1 } })).toEqual({ patch: [{ op: 'replace', path: '/a', value: { 0: 1 } }], before: [[1]] });
  });
});

describe('commonSubsequence', () => {
  it('finds a longest common subsequence and never matches undefined keys', () => {
    expect(commonSubsequence(['a', 'b', 'c', 'd'], ['b', 'x', 'd'])).toEqual([[1, 0], [3, 2]]);
    expect(commonSubsequence([undefined, 'a'], [undefined, 'a'])).toEqual([[1, 1]]);
    expect(commonSubsequence([], ['a'])).toEqual([]);
  });
});
