import { describe, expect, it } from 'vitest';
import { JsonScanError } from '../../../src/lib/json-split.js';
import { JsonSyntaxError, scanJsonPage, type PageShape, type ScannedPage } from '../../../src/lib/json-page-scan.js';

const SHAPE: PageShape = { members: ['nextCursor', 'total'], items: 'events', itemMembers: ['id', 'startTime', 'status'], itemTexts: ['eventId'] };

function scan(text: string, shape: PageShape = SHAPE): ScannedPage {
  return scanJsonPage(text, shape);
}

/** The error the scan throws for `text`, checked to be a JsonSyntaxError (a SyntaxError, as JSON.parse throws). */
function refused(text: string): JsonSyntaxError {
  expect(() => JSON.parse(text), 'JSON.parse refuses it too').toThrow(SyntaxError);
  try {
    scan(text);
  } catch (error) {
    expect(error).toBeInstanceOf(JsonSyntaxError);
    expect(error).toBeInstanceOf(SyntaxError);
    expect((error as Error).name).toBe('JsonSyntaxError');
    return error as JsonSyntaxError;
  }
  throw new Error(`${JSON.stringify(text)} was accepted`);
}

function refusal(text: string): string {
  return refused(text).message;
}

describe('scanJsonPage: what it takes from a page', () => {
  it('returns each item as its text and the named members of the page and of each object item', () => {
    const page = scan(
      '{"nextCursor":"abc","events":[{"eventId":-6388042533023614561,"id":"7_1","startTime":1654148872269,"status":"OPEN","other":[1,{"id":"deep"}]},' +
        '{"startTime":2},[{"id":"in an array item"}],"text",-1.5e3,true,null],"total":7,"unnamed":{"nextCursor":"inner"}}',
    );
    expect(page.members).toEqual({ nextCursor: 'abc', events: page.items, total: 7 });
    expect(page.items).toEqual([
      {
        text: '{"eventId":-6388042533023614561,"id":"7_1","startTime":1654148872269,"status":"OPEN","other":[1,{"id":"deep"}]}',
        values: ['7_1', 1654148872269, 'OPEN', '-6388042533023614561'],
      },
      { text: '{"startTime":2}', values: [undefined, 2, undefined, undefined] },
      { text: '[{"id":"in an array item"}]', values: undefined },
      { text: '"text"', values: undefined },
      { text: '-1.5e3', values: undefined },
      { text: 'true', values: undefined },
      { text: 'null', values: undefined },
    ]);
  });

  it('takes item texts from the first character to the last, whitespace around them left out, inside kept', () => {
    const page = scan('{ "events" : [ \n\t{ "id" : "a b" , "eventId" : 12 }\r\n ,  [ 1 , 2 ] , { } ] }');
    expect(page.items?.map((item) => item.text)).toEqual(['{ "id" : "a b" , "eventId" : 12 }', '[ 1 , 2 ]', '{ }']);
    expect(page.items?.[0]?.values).toEqual(['a b', undefined, undefined, '12']);
    expect(page.items?.[2]?.values).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('decodes the named members as JSON.parse does: escapes, numbers, literals, objects and arrays', () => {
    const page = scan(
      '{"events":[{"id":"tab\\there \\"q\\" \\\\ \\/ \\u00e9\\ud83d\\ude00 \\b\\f\\n\\r","startTime":-0,"status":{"a":[1,"x"]}},' +
        '{"id":1E2,"startTime":0.5e-1,"status":[true,false,null]},{"id":false,"startTime":true,"status":null},{"id":12345678901234567890}],' +
        '"nextCursor":-12.75,"total":"seven"}',
    );
    const values = page.items?.map((item) => item.values);
    expect(values?.[0]?.[0]).toBe('tab\there "q" \\ / é😀 \b\f\n\r');
    expect(Object.is(values?.[0]?.[1], -0)).toBe(true);
    expect(values?.[0]?.[2]).toEqual({ a: [1, 'x'] });
    expect(values?.[1]).toEqual([100, 0.05, [true, false, null], undefined]);
    expect(values?.[2]).toEqual([false, true, null, undefined]);
    expect(values?.[3]?.[0]).toBe(12345678901234567000);
    expect(page.members).toEqual({ events: page.items, nextCursor: -12.75, total: 'seven' });
  });

  it('takes an item text member as written: digits beyond Number precision, a string with its quotes, an object with its spaces', () => {
    const page = scan('{"events":[{"eventId":18446744073709551615},{"eventId":"x\\"y"},{"eventId":{ "a" : [ 1 ] }},{"eventId":null}]}');
    expect(page.items?.map((item) => item.values?.[3])).toEqual(['18446744073709551615', '"x\\"y"', '{ "a" : [ 1 ] }', 'null']);
  });

  it('keeps the last value of a repeated name, as JSON.parse does', () => {
    const page = scan('{"total":1,"events":[{"id":"a","id":"b","startTime":{"x":1},"startTime":3}],"total":2,"nextCursor":"c","nextCursor":null}');
    expect(page.members).toEqual({ total: 2, nextCursor: null, events: page.items });
    expect(page.items?.[0]?.values).toEqual(['b', 3, undefined, undefined]);
  });

  it('reads the items member by its last value: items when it is an array, its value otherwise', () => {
    expect(scan('{"events":[1],"events":[2,3]}').items?.map((item) => item.text)).toEqual(['2', '3']);
    const notArray = scan('{"events":[1],"events":{"a":[1]}}');
    expect(notArray.items).toBeUndefined();
    expect(notArray.members).toEqual({ events: { a: [1] } });
    const arrayAgain = scan('{"events":null,"events":[]}');
    expect(arrayAgain.items).toEqual([]);
    expect(arrayAgain.members).toEqual({ events: [] });
    for (const [value, decoded] of [['null', null], ['7', 7], ['"x"', 'x'], ['false', false]] as const) {
      const page = scan(`{"events":${value}}`);
      expect(page.items).toBeUndefined();
      expect(page.members).toEqual({ events: decoded });
    }
    const absent = scan('{"other":[{"id":"x"}]}');
    expect(absent.items).toBeUndefined();
    expect(absent.members).toEqual({});
  });

  it('reads members only of the page itself and of its items: not of other members nor deeper objects', () => {
    const page = scan('{"wrapper":{"total":1,"events":[{"id":"no"}]},"events":[{"wrapper":{"id":"no"},"list":[{"id":"no"}]}],"list":[{"total":3}]}');
    expect(page.members).toEqual({ events: page.items });
    expect(page.items?.[0]?.values).toEqual([undefined, undefined, undefined, undefined]);
    // After the items member, its items' names are no longer read.
    expect(scan('{"events":[],"more":[{"id":"no"}],"x":{"id":"no"}}').members).toEqual({ events: [] });
  });

  it('compares names as JSON.parse decodes them, and only whole names', () => {
    const page = scan('{"\\u0065vents":[{"\\u0069d":"escaped","startTim\\u0065":5,"i":1,"idx":2,"Id":3,"eventI":4,"status ":5}],"nextCurso\\u0072":"n","tota":1,"totals":2}');
    expect(page.members).toEqual({ events: page.items, nextCursor: 'n' });
    expect(page.items?.[0]?.values).toEqual(['escaped', 5, undefined, undefined]);
  });

  it('tells names of the same length apart', () => {
    const shape: PageShape = { members: [], items: 'items', itemMembers: ['ab', 'ac', 'bc'], itemTexts: ['ad'] };
    const page = scan('{"items":[{"ad":4,"bc":3,"ac":2,"ab":1,"ae":0}]}', shape);
    expect(page.items?.[0]?.values).toEqual([1, 2, 3, '4']);
  });

  it('takes nothing it was not asked for', () => {
    const page = scan('{"events":[{"id":"x"}],"total":1}', { members: [], items: 'events', itemMembers: [], itemTexts: [] });
    expect(page.members).toEqual({ events: page.items });
    expect(page.items).toEqual([{ text: '{"id":"x"}', values: [] }]);
  });

  it('reads an empty page and an empty object item', () => {
    expect(scan('{}')).toEqual({ members: {}, items: undefined });
    expect(scan(' \t\r\n{ \t\r\n} \t\r\n')).toEqual({ members: {}, items: undefined });
    expect(scan('{"events":[{}]}').items).toEqual([{ text: '{}', values: [undefined, undefined, undefined, undefined] }]);
  });
});

describe('scanJsonPage: a text that is JSON but not an object', () => {
  it.each([
    ['[]', 0],
    ['[{"events":[]}]', 0],
    ['"page"', 0],
    ['42', 0],
    ['null', 0],
    ['  true', 2],
    ['\n-1e3 ', 1],
  ])('%j is refused with a JsonScanError at offset %i', (text, offset) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(() => scan(text)).toThrow(new JsonScanError('expected an object', offset));
    expect(() => scan(text)).toThrow(JsonScanError);
  });
});

describe('scanJsonPage: refuses what JSON.parse refuses, saying what and where', () => {
  it.each([
    ['{"a":01}', 'expected "," or "}" at offset 6'],
    ['{"a":-01}', 'expected "," or "}" at offset 7'],
    ['{"a":00}', 'expected "," or "}" at offset 6'],
    ['{"a":-}', 'bad number at offset 6'],
    ['{"a":-a}', 'bad number at offset 6'],
    ['{"a":1.}', 'bad number at offset 7'],
    ['{"a":1.e5}', 'bad number at offset 7'],
    ['{"a":.5}', 'unexpected character at offset 5'],
    ['{"a":+1}', 'unexpected character at offset 5'],
    ['{"a":1e}', 'bad number at offset 7'],
    ['{"a":1E+}', 'bad number at offset 8'],
    ['{"a":1e-x}', 'bad number at offset 8'],
    ['{"a":1e5.5}', 'expected "," or "}" at offset 8'],
    ['{"a":0x10}', 'expected "," or "}" at offset 6'],
    ['{"a":Infinity}', 'unexpected character at offset 5'],
    ['{"a":NaN}', 'unexpected character at offset 5'],
    ['{"a":1}}', 'unexpected text after the value at offset 7'],
  ])('a number: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['{"a":tru}', 'unexpected character at offset 5'],
    ['{"a":True}', 'unexpected character at offset 5'],
    ['{"a":nul}', 'unexpected character at offset 5'],
    ['{"a":fals}', 'unexpected character at offset 5'],
    ['{"a":truex}', 'expected "," or "}" at offset 9'],
    ['{"a":nullnull}', 'expected "," or "}" at offset 9'],
    ['{"a":undefined}', 'unexpected character at offset 5'],
    ["{'a':1}", 'expected a member name at offset 1'],
    ['{"a":\'x\'}', 'unexpected character at offset 5'],
  ])('a literal or a quote: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['{"a":"\\x"}', 'bad escape at offset 6'],
    ['{"a":"\\a"}', 'bad escape at offset 6'],
    ['{"a":"\\\'"}', 'bad escape at offset 6'],
    ['{"a":"\\U0041"}', 'bad escape at offset 6'],
    ['{"a":"\\u004"}', 'bad escape at offset 6'],
    ['{"a":"\\u00G1"}', 'bad escape at offset 6'],
    ['{"a":"\\u"}', 'bad escape at offset 6'],
    ['{"a":"ok \\n then \\q"}', 'bad escape at offset 17'],
    ['{"\\x":1}', 'bad escape at offset 2'],
    ['{"a":"\\', 'unterminated string at offset 5'],
    ['{"a":"\\u12', 'unterminated string at offset 5'],
    ['{"a":"\\u12"}', 'bad escape at offset 6'],
  ])('an escape: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['{"a":"line\nbreak"}', 'control character in a string at offset 10'],
    ['{"a":"tab\there"}', 'control character in a string at offset 9'],
    ['{"a":"cr\rhere"}', 'control character in a string at offset 8'],
    ['{"a":"\u0000"}', 'control character in a string at offset 6'],
    ['{"a":"x\u001f"}', 'control character in a string at offset 7'],
    ['{"a\u0001":1}', 'control character in a string at offset 3'],
    ['{"a":"\\n\u0002"}', 'control character in a string at offset 8'],
    ['{"a":"x",\n"b":"y\nz"}', 'control character in a string at offset 16'],
  ])('a raw control character in a string: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it('accepts the characters just above the controls, and line and paragraph separators, raw in strings', () => {
    const page = scan('{"events":[{"id":"\u0020\u007f\u0080\u2028\u2029\ufeff"}]}');
    expect(page.items?.[0]?.values?.[0]).toBe(' \u007f\u0080\u2028\u2029\ufeff');
  });

  it.each([
    ['{"a":"', 'unterminated string at offset 5'],
    ['{"a":"abc', 'unterminated string at offset 5'],
    ['{"a":"abc\\"}', 'unterminated string at offset 5'],
    ['{"a', 'unterminated string at offset 1'],
    ['{"events":["x\\\\\\"]}', 'unterminated string at offset 11'],
  ])('an unterminated string: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['{"a":1,}', 'expected a member name at offset 7'],
    ['{"events":[1,]}', 'unexpected character at offset 13'],
    ['{,}', 'expected a member name at offset 1'],
    ['{"events":[,1]}', 'unexpected character at offset 11'],
    ['{"a" 1}', 'expected ":" at offset 5'],
    ['{"a"}', 'expected ":" at offset 4'],
    ['{"a":}', 'unexpected character at offset 5'],
    ['{"a":1 "b":2}', 'expected "," or "}" at offset 7'],
    ['{"events":[1 2]}', 'expected "," or "]" at offset 13'],
    ['{"events":[1}', 'expected "," or "]" at offset 12'],
    ['{"a":{]}', 'expected a member name at offset 6'],
    ['{"a":[}]}', 'unexpected character at offset 6'],
    ['{"a":1]', 'expected "," or "}" at offset 6'],
    ['{1:2}', 'expected a member name at offset 1'],
    ['{"a":1', 'expected "," or "}" at offset 6'],
    ['{"a":[', 'unexpected end of text at offset 6'],
    ['{"a":', 'unexpected end of text at offset 5'],
    ['{', 'expected a member name at offset 1'],
    ['', 'unexpected end of text at offset 0'],
    [' \n\t\r', 'unexpected end of text at offset 4'],
  ])('a misplaced or missing token: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['{} x', 'unexpected text after the value at offset 3'],
    ['{}{}', 'unexpected text after the value at offset 2'],
    ['{},', 'unexpected text after the value at offset 2'],
    ['{}\u0000', 'unexpected text after the value at offset 2'],
    ['[] 1', 'unexpected text after the value at offset 3'],
  ])('text after the value: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it.each([
    ['\u00a0{}', 'unexpected character at offset 0'],
    ['\ufeff{}', 'unexpected character at offset 0'],
    ['{\f}', 'expected a member name at offset 1'],
    ['{"a":\v1}', 'unexpected character at offset 5'],
    ['{"a"\u2028:1}', 'expected ":" at offset 4'],
    ['{"a":1\u0000}', 'expected "," or "}" at offset 6'],
  ])('whitespace JSON does not allow: %j', (text, message) => {
    expect(refusal(text)).toBe(message);
  });

  it('gives the offset as a number, and keeps reading escapes and quotes correctly after earlier ones', () => {
    expect(refused('{"a":"\\"\\\\","b":"\\\\\\"","c":x}').offset).toBe(27);
    expect(scan('{"events":[{"id":"\\\\"},{"id":"\\""},{"id":"plain"},{"id":"\\\\\\""},{"id":"\\u0041\\\\"}]}').items?.map((item) => item.values?.[0])).toEqual([
      '\\',
      '"',
      'plain',
      '\\"',
      'A\\',
    ]);
  });

  it('finds a control character in a string after whitespace between tokens and after strings with escapes', () => {
    expect(refusal('{\n"a":"\\n",\n\t"b":"ok",\r\n"c":"x\u0007"}')).toBe('control character in a string at offset 30');
    // Line breaks between tokens are whitespace, not control characters in a string.
    expect(scan('{\n"events":[\n{"id":"a"},\n{"id":"b\\u000a"}\n]\n}').items?.map((item) => item.values?.[0])).toEqual(['a', 'b\n']);
  });
});

describe('scanJsonPage: nesting', () => {
  const DEPTH = 100_000;

  it(`reads ${DEPTH.toLocaleString('en-US')} levels of arrays and objects without recursion, as JSON.parse does`, () => {
    const arrays = `{"events":[${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}],"total":1}`;
    expect(() => JSON.parse(arrays)).not.toThrow();
    const page = scan(arrays);
    expect(page.items).toHaveLength(1);
    expect(page.items?.[0]?.text).toHaveLength(2 * DEPTH);
    expect(page.members.total).toBe(1);
    const objects = `{"events":[${'{"id":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}]}`;
    expect(() => JSON.parse(objects)).not.toThrow();
    expect(scan(objects).items?.[0]?.values).toEqual([{ id: expect.anything() as unknown }, undefined, undefined, undefined]);
  });

  it('refuses deep nesting that is not closed, or closed by the wrong bracket, as JSON.parse does', () => {
    expect(refusal(`{"a":${'['.repeat(DEPTH)}${']'.repeat(DEPTH - 1)}}`)).toBe(`expected "," or "]" at offset ${5 + 2 * DEPTH - 1}`);
    expect(refusal(`{"a":${'['.repeat(DEPTH)}`)).toBe(`unexpected end of text at offset ${5 + DEPTH}`);
    expect(refusal(`{"a":${'{"b":['.repeat(DEPTH)}${']}'.repeat(DEPTH - 1)}]]}`)).toBe(`expected "," or "}" at offset ${5 + 6 * DEPTH + 2 * (DEPTH - 1) + 1}`);
  });
});
