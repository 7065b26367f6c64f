import { expect } from 'vitest';
import { parseDocument } from 'yaml';
import { fastParseYaml } from '../../src/desired/fast-yaml/fast-parse.js';

/** Order-, type- and sign-exact rendering: `-0`, `NaN`, key order and `__proto__` members all count. */
export function exact(value: unknown): string {
  if (typeof value === 'number') return Object.is(value, -0) ? 'n:-0' : `n:${String(value)}`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'undefined';
  if (Array.isArray(value)) return `[${value.map(exact).join(',')}]`;
  return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${exact((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * The fast YAML path's contract: when it answers, `yaml` finds no error and the same value. True when the fast path
 * answered (and agreed), false when it declined; a disagreement fails the calling test.
 */
export function expectAgreement(source: string): boolean {
  const fast = fastParseYaml(source);
  if (!fast.ok) return false;
  const doc = parseDocument(source);
  expect(doc.errors.map((e) => e.message), source).toEqual([]);
  expect(exact(fast.value), source).toBe(exact(doc.toJS()));
  return true;
}
