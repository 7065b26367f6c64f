import { describe, expect, it } from 'vitest';
import { parsePointer, pointerProblem, pointerToPath, removePointer, WILDCARD } from '../../../src/plan/json-pointer.js';
import type { JsonValue } from '../../../src/plan/json-value.js';
import { normalizeForCompare } from '../../../src/dashboards/normalize.js';

function removed(document: JsonValue, pointer: string): JsonValue {
  removePointer(document, parsePointer(pointer));
  return document;
}

describe('removePointer: rules ending at an array item', () => {
  it('removes every item for a trailing *', () => {
    expect(WILDCARD).toBe('*');
    expect(removed({ tiles: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }, '/tiles/*')).toEqual({ tiles: [] });
  });

  it('removes exactly the item at an index, and nothing for an index out of range or not canonical', () => {
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/0')).toEqual({ tags: ['b', 'c'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/2')).toEqual({ tags: ['a', 'b'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/3')).toEqual({ tags: ['a', 'b', 'c'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/01')).toEqual({ tags: ['a', 'b', 'c'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/-1')).toEqual({ tags: ['a', 'b', 'c'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/name')).toEqual({ tags: ['a', 'b', 'c'] });
    expect(removed({ tags: ['a', 'b', 'c'] }, '/tags/1e0')).toEqual({ tags: ['a', 'b', 'c'] });
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}`);
    expect(removed({ tags: [...eleven] }, '/tags/10')).toEqual({ tags: eleven.slice(0, 10) });
  });

  it('removes a member inside every item, or inside one item', () => {
    const tiles = () => [{ name: 'a', bounds: { top: 0 } }, { name: 'b', bounds: { top: 38 } }];
    expect(removed({ tiles: tiles() }, '/tiles/*/bounds')).toEqual({ tiles: [{ name: 'a' }, { name: 'b' }] });
    expect(removed({ tiles: tiles() }, '/tiles/1/bounds')).toEqual({ tiles: [{ name: 'a', bounds: { top: 0 } }, { name: 'b' }] });
    expect(removed({ tiles: tiles() }, '/tiles/2/bounds')).toEqual({ tiles: tiles() });
  });
});

describe('removePointer: object members', () => {
  it('removes one member, every member for *, and nothing for a missing key', () => {
    expect(removed({ a: 1, b: 2 }, '/a')).toEqual({ b: 2 });
    expect(removed({ m: { a: 1, b: 2 }, n: 1 }, '/m/*')).toEqual({ m: {}, n: 1 });
    expect(removed({ a: 1 }, '/b')).toEqual({ a: 1 });
    expect(removed({ a: { x: 1, y: 2 }, b: { x: 1 } }, '/*/x')).toEqual({ a: { y: 2 }, b: {} });
  });

  it('stops at a scalar or a missing member on the way', () => {
    expect(removed({ a: 1 }, '/a/b')).toEqual({ a: 1 });
    expect(removed({ a: null }, '/a/b')).toEqual({ a: null });
    expect(removed({ a: 1 }, '/b/c')).toEqual({ a: 1 });
    expect(removed('text', '/a')).toBe('text');
    expect(removed({ a: 1 }, '')).toEqual({ a: 1 });
    expect(removed({ undefined: 1 }, '')).toEqual({ undefined: 1 });
  });

  it('unescapes ~1 and ~0 in keys', () => {
    expect(removed({ 'a/b': 1, 'a~b': 2, c: 3 }, '/a~1b')).toEqual({ 'a~b': 2, c: 3 });
    expect(removed({ 'a/b': 1, 'a~b': 2, c: 3 }, '/a~0b')).toEqual({ 'a/b': 1, c: 3 });
  });

  it('does not follow inherited members', () => {
    const document = { a: 1 };
    expect(removed(document, '/toString')).toEqual({ a: 1 });
    expect(typeof ({} as Record<string, unknown>).toString).toBe('function');
  });
});

describe('ignore rules in normalizeForCompare', () => {
  const dashboard = (tags: string[], tiles: string[]) => ({
    dashboardMetadata: { name: 'Hosts', owner: 'ops', tags },
    tiles: tiles.map((name) => ({ name, tileType: 'MARKDOWN', bounds: { top: 0, left: 0, width: 304, height: 38 }, markdown: name })),
  });
  const same = (a: unknown, b: unknown, ignore: string[]) =>
    JSON.stringify(normalizeForCompare(a, { ignore })) === JSON.stringify(normalizeForCompare(b, { ignore }));

  it('/tiles/* ignores every tile', () => {
    expect(same(dashboard([], ['a', 'b']), dashboard([], ['c']), [])).toBe(false);
    expect(same(dashboard([], ['a', 'b']), dashboard([], ['c']), ['/tiles/*'])).toBe(true);
    expect(normalizeForCompare(dashboard(['x'], ['a', 'b']), { ignore: ['/tiles/*'] })).toEqual({
      dashboardMetadata: { hasConsistentColors: false, name: 'Hosts', owner: 'ops', preset: false, shared: false, tags: ['x'], tilesNameSize: 'medium' },
    });
  });

  it('/dashboardMetadata/tags/0 ignores the first tag in sorted order', () => {
    expect(normalizeForCompare(dashboard(['team:b', 'env:prod'], []), { ignore: ['/dashboardMetadata/tags/0'] })).toEqual({
      dashboardMetadata: { hasConsistentColors: false, name: 'Hosts', owner: 'ops', preset: false, shared: false, tags: ['team:b'], tilesNameSize: 'medium' },
    });
    expect(same(dashboard(['env:prod', 'team:a'], []), dashboard(['env:dev', 'team:a'], []), ['/dashboardMetadata/tags/0'])).toBe(true);
    expect(same(dashboard(['env:prod', 'team:a'], []), dashboard(['env:prod', 'team:b'], []), ['/dashboardMetadata/tags/0'])).toBe(false);
  });

  it('skips a rule that is not a valid pointer instead of removing something else', () => {
    expect(same(dashboard(['a'], []), dashboard(['b'], []), ['dashboardMetadata/tags'])).toBe(false);
    expect(same(dashboard(['a'], []), dashboard(['b'], []), ['/dashboardMetadata/tags~2'])).toBe(false);
  });
});

describe('parsePointer and pointerToPath', () => {
  it('splits a pointer into unescaped segments', () => {
    expect(parsePointer('')).toEqual([]);
    expect(parsePointer('/')).toEqual(['']);
    expect(parsePointer('/tiles/3/a~1b')).toEqual(['tiles', '3', 'a/b']);
    expect(parsePointer('/~0~1/~1~0')).toEqual(['~/', '/~']);
    expect(parsePointer('/a~01')).toEqual(['a~1']);
  });

  it('renders the dotted path of constraint violations, quoting keys that are not identifiers', () => {
    expect(pointerToPath('/tiles/0/bounds/top')).toBe('tiles[0].bounds.top');
    expect(pointerToPath('/0/a')).toBe('[0].a');
    expect(pointerToPath('/tiles/01')).toBe('tiles["01"]');
    expect(pointerToPath('/tiles/10')).toBe('tiles[10]');
    expect(pointerToPath('/a b/c')).toBe('["a b"].c');
    expect(pointerToPath('/_x/$y/z-1')).toBe('_x.$y.z-1');
    expect(pointerToPath('/1a')).toBe('["1a"]');
    expect(pointerToPath('/a/-')).toBe('a["-"]');
    expect(pointerToPath('')).toBe('');
  });
});

describe('pointerProblem', () => {
  it('accepts RFC 6901 pointers with * segments', () => {
    for (const pointer of ['/tiles/*/bounds', '/a~0b', '/a~1b', '/', '/*']) expect(pointerProblem(pointer), pointer).toBeUndefined();
  });

  it('refuses the empty pointer, a missing leading slash and a ~ not followed by 0 or 1', () => {
    expect(pointerProblem('')).toBe('the empty pointer would ignore the whole dashboard');
    expect(pointerProblem('tiles')).toBe('must start with "/", as in /tiles/*/bounds');
    expect(pointerProblem('/a~')).toBe('a "~" must be followed by 0 ("~") or 1 ("/")');
    expect(pointerProblem('/a~2/b')).toBe('a "~" must be followed by 0 ("~") or 1 ("/")');
    expect(pointerProblem('/a~0~')).toBe('a "~" must be followed by 0 ("~") or 1 ("/")');
  });
});
