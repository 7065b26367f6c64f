import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  compareCodeUnits,
  isJsonObject,
  sortKeysDeep,
  sortKeysInPlace,
  toJsonValue,
  toSortedJsonValue,
  type JsonObject,
} from '../../../src/plan/json-value.js';

/** A parsed document with a `__proto__` member, as YAML and JSON.parse both produce one (an own member). */
function withProtoMember(): Record<string, unknown> {
  return JSON.parse('{"title":"Hosts","__proto__":{"shared":true}}') as Record<string, unknown>;
}

describe('toJsonValue: a copy as JSON carries it', () => {
  it('drops what JSON drops: undefined, functions and symbols as members; as array items they become null', () => {
    expect(toJsonValue(undefined)).toBeUndefined();
    expect(toJsonValue(() => 1)).toBeUndefined();
    expect(toJsonValue(Symbol('s'))).toBeUndefined();
    const copy = toJsonValue({ name: 'CPU', gone: undefined, fn: () => 1, sym: Symbol('s'), kept: false });
    expect(copy).toEqual({ name: 'CPU', kept: false });
    expect(Object.keys(copy as JsonObject)).toEqual(['name', 'kept']);
    expect(toJsonValue([1, undefined, () => 1])).toEqual([1, null, null]);
  });

  it('turns non-finite numbers into null, as JSON.stringify does', () => {
    expect(toJsonValue({ a: Number.NaN, b: Number.POSITIVE_INFINITY, c: -1.5 })).toEqual({ a: null, b: null, c: -1.5 });
  });

  it('keeps a __proto__ member as an ordinary, enumerable, writable member (never as the prototype)', () => {
    const copy = toJsonValue(withProtoMember()) as JsonObject;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(JSON.stringify(copy)).toBe('{"title":"Hosts","__proto__":{"shared":true}}');
    expect(Object.keys(copy)).toEqual(['title', '__proto__']);
    (copy as Record<string, unknown>)['__proto__'] = 'replaced';
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value).toBe('replaced');
    // Normalisation deletes empty members and ignored pointers; this one must be deletable like any other.
    delete (copy as Record<string, unknown>)['__proto__'];
    expect(Object.keys(copy)).toEqual(['title']);
  });
});

describe('sortKeysDeep', () => {
  it('sorts keys by code unit at every depth and leaves array order alone', () => {
    const sorted = sortKeysDeep({ tiles: [{ tileType: 'MARKDOWN', name: 'b' }], Z: 1, a: { y: 1, x: 2 } });
    expect(JSON.stringify(sorted)).toBe('{"Z":1,"a":{"x":2,"y":1},"tiles":[{"name":"b","tileType":"MARKDOWN"}]}');
  });

  it('returns strings, numbers, booleans and null as they are', () => {
    expect(sortKeysDeep('ab')).toBe('ab');
    expect(sortKeysDeep(null)).toBeNull();
    expect(sortKeysDeep(7)).toBe(7);
  });
});

describe('toSortedJsonValue: the first copy of normalisation', () => {
  it('sorts keys and leaves out null and undefined members, but keeps null array items', () => {
    const copy = toSortedJsonValue({ tileType: 'MARKDOWN', bounds: null, name: 'x', gone: undefined, list: [null, undefined, 2] });
    expect(JSON.stringify(copy)).toBe('{"list":[null,null,2],"name":"x","tileType":"MARKDOWN"}');
    expect(Object.keys(copy as JsonObject)).toEqual(['list', 'name', 'tileType']);
  });

  it('copies a __proto__ member as an own member', () => {
    expect(JSON.stringify(toSortedJsonValue(withProtoMember()))).toBe('{"__proto__":{"shared":true},"title":"Hosts"}');
  });
});

describe('sortKeysInPlace', () => {
  it('keeps an object whose keys are in order (the same object), sorting its members in place', () => {
    const inner = { y: 1, x: 2 };
    const value: JsonObject = { a: inner, b: [{ d: 1, c: 2 }] };
    const result = sortKeysInPlace(value);
    expect(result).toBe(value);
    expect(Object.keys(value['a'] as JsonObject)).toEqual(['x', 'y']);
    expect(JSON.stringify(value['b'])).toBe('[{"c":2,"d":1}]');
  });

  it('returns a sorted copy of an object whose keys are out of order', () => {
    const value: JsonObject = { name: 'CPU', bounds: { top: 0, left: 0 } };
    const result = sortKeysInPlace(value);
    expect(result).not.toBe(value);
    expect(JSON.stringify(result)).toBe('{"bounds":{"left":0,"top":0},"name":"CPU"}');
  });

  it('returns null and strings unchanged', () => {
    expect(sortKeysInPlace(null)).toBeNull();
    expect(sortKeysInPlace('ab')).toBe('ab');
  });
});

describe('canonicalJson and compareCodeUnits', () => {
  it('serialise equal objects identically whatever their key order', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] })).toBe('{"a":[{"c":2,"d":1}],"b":1}');
  });

  it('orders by UTF-16 code unit: upper case before lower case, no locale', () => {
    expect(['b', 'a', 'B', 'ä'].sort(compareCodeUnits)).toEqual(['B', 'a', 'b', 'ä']);
    expect(compareCodeUnits('a', 'a')).toBe(0);
    expect(compareCodeUnits('a', 'b')).toBe(-1);
    expect(compareCodeUnits('b', 'a')).toBe(1);
  });

  it('isJsonObject is true for objects only', () => {
    expect([{}, [], null, 'x'].map(isJsonObject)).toEqual([true, false, false, false]);
  });
});
