import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstJsonError } from '../../../src/lib/json-error.js';

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** JSON texts, laid out in every way JSON allows, then maybe broken by one edit of a character JSON cares about. */
const texts = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v, null, 2)),
  fc.tuple(fc.json({ maxDepth: 4 }), fc.nat(), fc.constantFrom('', ',', "'", '"', ':', '[', ']', '{', '}', '\\', '-', '.', 'e', '0', '1', ' ', '\n', '\t', '#', '/', 'u', 'x', '\u0001', '\ufeff', 'true', 'nul', '+')).map(
    ([text, at, edit]) => {
      const i = at % (text.length + 1);
      return at % 2 === 0 ? text.slice(0, i) + edit + text.slice(i) : text.slice(0, i) + edit + text.slice(i + 1);
    },
  ),
  fc.string({ unit: fc.constantFrom('{', '}', '[', ']', '"', ',', ':', '1', '0', '-', '.', 'e', 'E', '+', 't', 'r', 'u', 'e', 'n', 'l', 'f', 'a', 's', ' ', '\\', '/', 'b'), maxLength: 16 }),
);

describe('firstJsonError', () => {
  it('finds an error exactly when JSON.parse refuses the text, at an offset within it', () => {
    fc.assert(
      fc.property(texts, (text) => {
        const error = firstJsonError(text);
        expect(error === undefined, text).toBe(parses(text));
        if (error) {
          expect(error.offset).toBeGreaterThanOrEqual(0);
          expect(error.offset).toBeLessThanOrEqual(text.length);
        }
      }),
      { numRuns: 5000 },
    );
  });

  it('names the slips YAML forgives, where they are', () => {
    const cases: [string, number, string][] = [
      ['{"a": 1,}', 7, 'a trailing comma'],
      ['[1, 2,]', 5, 'a trailing comma'],
      ['{"t": [1,\n\n  ]}', 8, 'a trailing comma'],
      ["{'a': 1}", 1, 'a single-quoted name'],
      ['{"a": \'x\'}', 6, 'a single-quoted string'],
      ['{"a": 1} # note', 9, 'a comment'],
      ['{"a": 1, // note\n"b": 2}', 9, 'a comment'],
      ['{a: 1}', 1, 'a name not in double quotes'],
      ['{"a" 1}', 5, "no ':' after a member's name"],
      ['{"a": }', 6, "no value after ':'"],
      ['{"a": 1 "b": 2}', 8, "no ',' or '}' after a member"],
      ['[1 2]', 3, "no ',' or ']' after an item"],
      ['[1, 2', 5, 'the text ends before the JSON does'],
      ['', 0, 'the text ends before the JSON does'],
      ['{} {}', 3, 'more text after the JSON value'],
      [']', 0, "']' where a value starts"],
      // A closing bracket of the wrong kind is no trailing comma, and is named where it is, not at an earlier comma.
      ['[}', 1, "'}' where a value starts"],
      ['{"a": 1, "b": [}', 15, "'}' where a value starts"],
      ['[1,}', 3, "'}' where a value starts"],
      ['{"x": "a,b", "y": [\n\n}', 21, "'}' where a value starts"],
      ['{"a": yes}', 6, 'a value not in JSON (a string needs double quotes)'],
      ['["a\nb"]', 3, 'a line break or control character inside a string (write it as \\n, \\t, …)'],
      ['["a\\qb"]', 3, 'an escape JSON does not have'],
      ['["a\\u12g4"]', 3, 'an escape JSON does not have'],
      ['["abc', 1, 'a string never closed'],
      ['[01]', 1, 'a number JSON does not have'],
      ['[1.]', 1, 'a number JSON does not have'],
      ['[-]', 1, 'a number JSON does not have'],
      ['[1e+]', 1, 'a number JSON does not have'],
    ];
    for (const [text, offset, reason] of cases) expect(firstJsonError(text), text).toEqual({ offset, reason });
  });

  it('accepts JSON of every kind, and nesting deeper than any stack would take', () => {
    for (const text of ['0', '-0.5e+10', '"\\u00e9\\n\\"\\/"', 'true', 'false', 'null', ' [ ] ', '{"a":{"b":[1,{"c":null}]}}', '\t{\r\n}\n', '{"":""}']) {
      expect(firstJsonError(text), text).toBeUndefined();
    }
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    expect(firstJsonError(deep)).toBeUndefined();
    expect(firstJsonError(`${deep}]`)).toEqual({ offset: 200_000, reason: 'more text after the JSON value' });
  });
});
