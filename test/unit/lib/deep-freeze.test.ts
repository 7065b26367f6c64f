import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../../src/lib/deep-freeze.js';

describe('deepFreeze', () => {
  it('freezes the value and every object and array inside it, and returns the same value', () => {
    const value = { a: { b: [1, { c: 'x' }] }, d: [[2]], e: null, f: 'text' };
    expect(deepFreeze(value)).toBe(value);
    for (const inner of [value, value.a, value.a.b, value.a.b[1], value.d, value.d[0]]) expect(Object.isFrozen(inner)).toBe(true);
    expect(() => {
      (value.a.b[1] as { c: string }).c = 'changed';
    }).toThrow(TypeError);
  });

  it('takes scalars and null as they are', () => {
    expect(deepFreeze(3)).toBe(3);
    expect(deepFreeze(null)).toBe(null);
    expect(deepFreeze('s')).toBe('s');
  });

  it('freezes values nested deeper than the call stack goes, and shared or cyclic ones once', () => {
    let deep: { next?: unknown } = {};
    const root = deep;
    for (let i = 0; i < 100_000; i++) deep = (deep.next = {}) as { next?: unknown };
    expect(Object.isFrozen(deepFreeze(root))).toBe(true);
    expect(Object.isFrozen(deep)).toBe(true);
    const cyclic: { self?: unknown; list: unknown[] } = { list: [] };
    cyclic.self = cyclic;
    cyclic.list.push(cyclic);
    expect(Object.isFrozen(deepFreeze(cyclic).list)).toBe(true);
  });
});
