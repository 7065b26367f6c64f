import { describe, expect, it } from 'vitest';
import { getPath, isPlainObject, mergeDeep } from '../../../src/environments/deep-merge.js';
import type { Environment } from '../../../src/environments/environment.js';
import { selectEnvironments } from '../../../src/environments/select-environments.js';

const env = (name: string, group: string | null = null): Environment => ({ name, group, target: { kind: 'embedded' }, values: {} });

describe('selectEnvironments: messages and choice', () => {
  it('says which flag needs environments, and that --env and --all-envs exclude each other', () => {
    expect(selectEnvironments([], { names: [], allEnvs: true })).toEqual({ kind: 'error', message: '--all-envs needs environments: declare them under environments: in dashcd.yaml' });
    expect(selectEnvironments([env('dev')], { names: ['dev'], allEnvs: true })).toEqual({ kind: 'error', message: '--env and --all-envs exclude each other: choose some environments or all of them' });
  });

  it('counts environments named by --env as chosen', () => {
    expect(selectEnvironments([env('dev'), env('prod')], { names: ['prod'], allEnvs: false })).toEqual({ kind: 'environments', environments: [env('prod')], chosen: true });
  });

  it('lists the environments, and groups only when there are some, in an unknown-name error', () => {
    expect(selectEnvironments([env('dev'), env('prod')], { names: ['zzzzzz'], allEnvs: false })).toEqual({ kind: 'error', message: 'unknown environment zzzzzz (environments: dev, prod)' });
    expect(selectEnvironments([env('dev'), env('eu', 'production'), env('us', 'production')], { names: ['prodution'], allEnvs: false })).toEqual({
      kind: 'error',
      message: 'unknown environment prodution — did you mean production? (environments: dev, eu, us; groups: production)',
    });
  });
});

describe('deep-merge helpers', () => {
  it('isPlainObject: objects only, not null, not lists', () => {
    expect([{}, { a: 1 }, null, [], 'x', 1, undefined].map(isPlainObject)).toEqual([true, true, false, false, false, false, false]);
  });

  it('mergeDeep: nothing over a base keeps it; a scalar or a list over an object replaces it; null base takes the override', () => {
    expect(mergeDeep({ a: 1 }, undefined)).toEqual({ a: 1 });
    expect(mergeDeep({ a: 1 }, 5)).toBe(5);
    expect(mergeDeep({ a: { b: 1 } }, { a: [1] })).toEqual({ a: [1] });
    expect(mergeDeep(null, { a: 1 })).toEqual({ a: 1 });
    expect(mergeDeep({ a: 1, b: { c: 1, d: 2 } }, { b: { c: null } }, { nullDeletes: true })).toEqual({ a: 1, b: { d: 2 } });
  });

  it('getPath: own members only, a number steps into a list only, a name into an object only', () => {
    const value = { a: 'xyz', list: [1, 2], obj: { k: 1 } };
    expect(getPath(value, ['a', 0])).toBeUndefined();
    expect(getPath(value, ['list', '0'])).toBeUndefined();
    expect(getPath(value, ['list', 1])).toBe(2);
    expect(getPath(value, ['obj', 0])).toBeUndefined();
    expect(getPath(value, ['toString'])).toBeUndefined();
    expect(getPath(value, ['obj', 'k'])).toBe(1);
    expect(getPath(null, ['a'])).toBeUndefined();
  });
});

describe('the dashcd: block schema', () => {
  it("requires a name on each of an override's tiles, and keeps their other members", async () => {
    const { DashcdBlock } = await import('../../../src/environments/dashcd-block.js');
    expect(DashcdBlock.safeParse({ overrides: { dev: { tiles: [{ markdown: 'x' }] } } }).success).toBe(false);
    expect(DashcdBlock.safeParse({ overrides: { dev: { tiles: [{ name: '' }] } } }).success).toBe(false);
    expect(DashcdBlock.parse({ overrides: { dev: { tiles: [{ name: 'A', markdown: 'x' }], dashboardMetadata: { owner: 'o' } } } })).toEqual({
      overrides: { dev: { tiles: [{ name: 'A', markdown: 'x' }], dashboardMetadata: { owner: 'o' } } },
    });
  });
});
