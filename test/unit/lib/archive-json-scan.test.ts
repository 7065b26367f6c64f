import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compactJson, extractArrayItems, JsonScanError, scanObjectMembers, splitArrayItems } from '../../../src/lib/json-split.js';
import { CORPUS_DIR } from '../../helpers/corpus.js';

const CORPUS_PAGE = join(CORPUS_DIR, 'events', 'dt-openapi-env-v1-1.254__EventQueryResult-example.json');

describe('splitArrayItems', () => {
  it('returns each item as the exact text between the commas of the top-level array', () => {
    expect(splitArrayItems('[1, "a" ,null,true,  -2.5e3 , {"k":[1,2]} ,[[],{}]]')).toEqual([
      '1',
      '"a"',
      'null',
      'true',
      '-2.5e3',
      '{"k":[1,2]}',
      '[[],{}]',
    ]);
  });

  it('keeps 64-bit integers digit for digit', () => {
    const items = splitArrayItems('[{"eventId":-4314211936928920170,"n":18446744073709551615}]');
    expect(items).toEqual(['{"eventId":-4314211936928920170,"n":18446744073709551615}']);
  });

  it('is not fooled by brackets, braces, commas and quotes inside strings', () => {
    const tricky = ['{"a":"]"}', '{"b":"}{,"}', '{"c":"[\\"quoted\\", ]"}', '{"d":"\\\\"}', '{"e":"\\\\\\""}', '"]],[["'];
    const items = splitArrayItems(`[${tricky.join(',')}]`);
    expect(items).toEqual(tricky);
    for (const item of items) expect(() => JSON.parse(item)).not.toThrow();
  });

  it('handles unicode, surrogate pairs, \\u escapes and line separators inside strings', () => {
    const values = ['ümlaut ✓', '𝄞 clef', '\\u0022 escaped quote', 'a\u2028b\u2029c', '\\ud83d\\ude00'];
    const text = `[${values.map((v) => `{"v":"${v}"}`).join(',')}]`;
    const items = splitArrayItems(text);
    expect(items).toHaveLength(values.length);
    expect(JSON.parse(`[${items.join(',')}]`)).toEqual(JSON.parse(text));
  });

  it('handles deeply nested objects and an empty array', () => {
    const deep = `${'{"a":['.repeat(200)}1${']}'.repeat(200)}`;
    expect(splitArrayItems(`[${deep},${deep}]`)).toEqual([deep, deep]);
    expect(splitArrayItems(' [ ] ')).toEqual([]);
  });

  it.each([
    ['[{"a":"unterminated}]', 'unterminated string'],
    ['[{"a":[1,2}', 'unbalanced brackets'],
    ['[1 2]', 'expected "," or "]"'],
    ['[1] trailing', 'unexpected text'],
    ['{"a":1}', 'expected an array'],
    ['[1,]', 'expected a value'],
  ])('rejects %s with a scan error (%s)', (text, message) => {
    expect(() => splitArrayItems(text)).toThrow(JsonScanError);
    expect(() => splitArrayItems(text)).toThrow(message);
  });
});

describe('scanObjectMembers and extractArrayItems', () => {
  it('maps member names (escapes decoded) to their raw value text, the last duplicate winning like JSON.parse', () => {
    const members = scanObjectMembers('{ "a" : 1 , "b\\"q" : {"x":"}"}, "c":[1,"]"], "a": "again", "n": null }');
    expect([...members]).toEqual([
      ['a', '"again"'],
      ['b"q', '{"x":"}"}'],
      ['c', '[1,"]"]'],
      ['n', 'null'],
    ]);
  });

  it('extracts the raw events of the spec example page', () => {
    const text = readFileSync(CORPUS_PAGE, 'utf8');
    const items = extractArrayItems(text, 'events');
    expect(items).toHaveLength(2);
    expect(items.map((item) => JSON.parse(item))).toEqual(JSON.parse(text).events);
  });

  it('returns no items when the member is absent or null', () => {
    expect(extractArrayItems('{"events":null}', 'events')).toEqual([]);
    expect(extractArrayItems('{"other":[1]}', 'events')).toEqual([]);
  });

  it('rejects text that is not an object', () => {
    expect(() => scanObjectMembers('[1]')).toThrow('expected an object');
    expect(() => scanObjectMembers('{"a" 1}')).toThrow('expected ":"');
    expect(() => scanObjectMembers('{"a":1,}')).toThrow('expected a member name');
  });
});

describe('compactJson', () => {
  it('puts multi-line JSON on one line without touching strings or numbers', () => {
    const pretty = '{\n  "eventId": -4314211936928920170,\n  "text": "two  spaces, a\\ttab",\n  "tags": [\n    { "key": "a b" }\n  ]\n}';
    expect(compactJson(pretty)).toBe('{"eventId":-4314211936928920170,"text":"two  spaces, a\\ttab","tags":[{"key":"a b"}]}');
  });

  it('returns single-line text unchanged, spaces included', () => {
    const line = '{"a": 1, "b": [1, 2]}';
    expect(compactJson(line)).toBe(line);
  });
});

describe('scanner properties', () => {
  it('splits any array of JSON values, however formatted, into items that parse to the same values', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.constantFrom(undefined, 2, '\t'), (values, indent) => {
        const items = splitArrayItems(JSON.stringify(values, null, indent));
        expect(items.map((item) => JSON.stringify(JSON.parse(item)))).toEqual(values.map((value) => JSON.stringify(value)));
        for (const item of items) expect(JSON.stringify(JSON.parse(compactJson(item)))).toBe(JSON.stringify(JSON.parse(item)));
        for (const item of items) expect(compactJson(item)).not.toMatch(/[\n\r]/);
      }),
      { numRuns: 300 },
    );
  });

  it('reads any object member exactly as JSON.stringify wrote it', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 6 }), (object) => {
        const members = scanObjectMembers(JSON.stringify(object));
        for (const [key, value] of Object.entries(object)) expect(members.get(key)).toBe(JSON.stringify(value));
      }),
      { numRuns: 300 },
    );
  });
});
