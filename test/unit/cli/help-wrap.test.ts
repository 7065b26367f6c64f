import { describe, expect, it } from 'vitest';
import { HELP_WIDTH, proseWords, wrapped, wrappedParagraphs, wrappedWords } from '../../../src/cli/help-wrap.js';

describe('help prose wrapping', () => {
  it('splits prose into words, keeping backquoted and quoted commands and "(default: x)" whole', () => {
    expect(proseWords('Run `dashcd plan --env dev` first, or see \'dashcd apply --help\' (default: 10) now')).toEqual([
      'Run',
      '`dashcd plan --env dev`',
      'first,',
      'or',
      'see',
      "'dashcd apply --help'",
      '(default: 10)',
      'now',
    ]);
    expect(proseWords('a `b c`d e')).toEqual(['a', '`b c`d', 'e']);
    expect(proseWords("it's 'not dashcd' x")).toEqual(["it's", "'not", "dashcd'", 'x']);
    expect(proseWords('  \n ')).toEqual([]);
    expect(proseWords('')).toEqual([]);
  });

  it('fills each line up to the width exactly, never past it, breaking only between words', () => {
    const word = 'x'.repeat(9);
    // Ten words of 9 and their spaces: 99 columns; one more word goes to the next line.
    const lines = wrapped('', Array.from({ length: 11 }, () => word).join(' '), 0);
    expect(lines).toEqual([Array.from({ length: 10 }, () => word).join(' '), word]);
    expect(lines[0]).toHaveLength(99);
    // A line of exactly HELP_WIDTH columns is kept whole.
    const exact = wrapped('', `${'a'.repeat(HELP_WIDTH - 2)} b`, 0);
    expect(exact).toEqual([`${'a'.repeat(HELP_WIDTH - 2)} b`]);
    expect(wrapped('', `${'a'.repeat(HELP_WIDTH - 1)} b`, 0)).toEqual(['a'.repeat(HELP_WIDTH - 1), 'b']);
  });

  it('starts after the lead and indents continuation lines by the given columns', () => {
    const lines = wrapped('  --flag <x>            ', Array.from({ length: 20 }, (_, i) => `word${i}`).join(' '), 25);
    expect(lines[0]?.startsWith('  --flag <x>            word0 word1')).toBe(true);
    expect(lines[1]?.startsWith(`${' '.repeat(25)}word`)).toBe(true);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(HELP_WIDTH);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain('word18 word19');
  });

  it('puts a word wider than the line alone on a line, unbroken, and keeps the lead of an empty text', () => {
    const long = 'u'.repeat(HELP_WIDTH + 20);
    expect(wrappedWords('  ', ['a', long, 'b'], 2)).toEqual(['  a', `  ${long}`, '  b']);
    expect(wrappedWords('lead', [], 4)).toEqual(['lead']);
    expect(wrappedWords('lead ', [], 4)).toEqual(['lead']);
    expect(wrappedWords('', [long], 0)).toEqual([long]);
  });

  it('reflows single line breaks and keeps blank-line paragraphs, one empty line between them', () => {
    expect(wrappedParagraphs('one\ntwo three\n\nfour\n  \nfive')).toEqual(['one two three', '', 'four', '', 'five']);
    expect(wrappedParagraphs('alone')).toEqual(['alone']);
  });
});
