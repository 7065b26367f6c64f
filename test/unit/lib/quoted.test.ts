import { describe, expect, it } from 'vitest';
import { excerpt, listedNames, MAX_QUOTED, quoted } from '../../../src/lib/quoted.js';

describe('quoted', () => {
  it('quotes a value as JSON, whole up to MAX_QUOTED characters', () => {
    expect(quoted('MARKDOWM')).toBe('"MARKDOWM"');
    expect(quoted(7)).toBe('7');
    expect(quoted(undefined)).toBe('undefined');
    const edge = 'x'.repeat(MAX_QUOTED - 2);
    expect(quoted(edge)).toBe(`"${edge}"`);
  });

  it('cuts a longer one and says how long it was (a 3.9-million-character value was quoted whole, per environment)', () => {
    const long = 'E'.repeat(3_900_000);
    const shown = quoted(long);
    expect(shown).toBe(`"${'E'.repeat(MAX_QUOTED - 1)}… (3,900,002 characters)`);
    expect(quoted('y'.repeat(MAX_QUOTED - 1))).toBe(`"${'y'.repeat(MAX_QUOTED - 1)}… (${MAX_QUOTED + 1} characters)`);
  });

  it('cuts text shown unquoted (a name, a key) the same way', () => {
    expect(excerpt('values.note')).toBe('values.note');
    expect(excerpt('n'.repeat(MAX_QUOTED))).toBe('n'.repeat(MAX_QUOTED));
    expect(excerpt('n'.repeat(500_000))).toBe(`${'n'.repeat(MAX_QUOTED)}… (500,000 characters)`);
  });

  it('never cuts a surrogate pair in half', () => {
    const text = `${'a'.repeat(MAX_QUOTED - 1)}😀${'b'.repeat(10)}`;
    expect(excerpt(text)).toBe(`${'a'.repeat(MAX_QUOTED - 1)}… (${text.length} characters)`);
    expect(excerpt(`${'a'.repeat(MAX_QUOTED - 2)}😀${'b'.repeat(10)}`).startsWith(`${'a'.repeat(MAX_QUOTED - 2)}😀…`)).toBe(true);
  });
});

describe('listedNames', () => {
  it('lists up to twenty names, then how many more, each cut as excerpt cuts', () => {
    const names = (n: number): string[] => Array.from({ length: n }, (_, i) => `e${i}`);
    expect(listedNames([])).toBe('');
    expect(listedNames(names(20))).toBe(names(20).join(', '));
    expect(listedNames(names(60_000))).toBe(`${names(20).join(', ')} and 59,980 more`);
    expect(listedNames(['x'.repeat(500), 'b'])).toBe(`${'x'.repeat(120)}… (500 characters), b`);
  });
});
