import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { configTypeMessage } from '../../../src/config/config-type-message.js';

const wrong = (expected: string, input: unknown): string | undefined => configTypeMessage({ code: 'invalid_type', expected, input } as unknown as z.core.$ZodRawIssue);

describe('configTypeMessage', () => {
  it('names each expected type in YAML words', () => {
    expect(wrong('boolean', 3)).toBe('expected true or false, got the number 3');
    expect(wrong('record', [])).toBe('expected a mapping (name: value lines), got a list');
    expect(wrong('object', 'x')).toBe('expected a mapping (name: value lines), got the text "x"');
    expect(wrong('array', {})).toBe('expected a list (- item lines, or [a, b]), got a mapping');
    expect(wrong('string', true)).toBe('expected text, got true');
    expect(wrong('number', null)).toBe('expected a number, got nothing (an empty value)');
    expect(wrong('int', false)).toBe('expected a whole number, got false');
  });

  it('says what YAML 1.2 made of the words older YAML read as booleans, and cuts long text', () => {
    expect(wrong('boolean', 'Yes')).toBe('expected true or false, got the text "Yes" (YAML reads Yes as text: write true)');
    expect(wrong('boolean', 'off')).toBe('expected true or false, got the text "off" (YAML reads off as text: write false)');
    expect(wrong('boolean', 'N')).toBe('expected true or false, got the text "N" (YAML reads N as text: write false)');
    expect(wrong('boolean', 'yesterday')).toBe('expected true or false, got the text "yesterday"');
    expect(wrong('string', 5)).toBe('expected text, got the number 5');
    expect(wrong('boolean', 'x'.repeat(41))).toBe(`expected true or false, got the text "${'x'.repeat(40)}…"`);
    expect(wrong('boolean', 'x'.repeat(40))).toBe(`expected true or false, got the text "${'x'.repeat(40)}"`);
  });

  it('leaves a missing value, another type and other issues to the caller', () => {
    expect(wrong('boolean', undefined)).toBeUndefined();
    expect(wrong('bigint', 1)).toBeUndefined();
    expect(configTypeMessage({ code: 'too_small', input: 1 } as unknown as z.core.$ZodRawIssue)).toBeUndefined();
  });
});
