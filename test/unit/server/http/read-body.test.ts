import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/server/http/http-error.js';
import { scanJson } from '../../../../src/server/http/json-guard.js';
import { checkJsonContentType, parseJsonBytes, parseJsonText } from '../../../../src/server/http/read-body.js';

function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected an HttpError');
}

describe('JSON body guards', () => {
  it('parses ordinary JSON exactly like JSON.parse', () => {
    const text = '{"a":[1,-2.5e3,true,false,null,"x\\u00e9\\n"],"b":{"c":{}},"d":[]}';
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });

  it('refuses 20,000 levels of nesting with a 400 instead of overflowing the stack', () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const error = refusal(() => parseJsonText(deep));
    expect(error.status).toBe(400);
    expect(error.message).toBe('JSON nested too deeply near line 1 column 65: Nesting deeper than 64 levels.');
    const objects = '{"a":'.repeat(20_000) + '1' + '}'.repeat(20_000);
    expect(refusal(() => parseJsonText(objects)).status).toBe(400);
  });

  it('accepts exactly the depth limit and refuses one more level', () => {
    expect(scanJson('['.repeat(64) + ']'.repeat(64), 64)).toEqual({ ok: true });
    expect(scanJson('['.repeat(65) + ']'.repeat(65), 64)).toMatchObject({ ok: false, kind: 'depth' });
  });

  it('refuses __proto__, constructor and prototype at any depth, also when escaped, naming every path', () => {
    const text = '{"a":[{"__proto__":{}}],"b":{"constructor":1},"c":{"d":{"prot\\u006ftype":2}},"__pro\\u0074o__":3}';
    const error = refusal(() => parseJsonText(text));
    expect(error.status).toBe(400);
    expect(error.message).toBe('Constraints violated.');
    expect(error.violations?.map((v) => v.path)).toEqual(['a[0].__proto__', 'b.constructor', 'c.d.prototype', '__proto__']);
    expect(error.violations?.every((v) => v.parameterLocation === 'PAYLOAD_BODY')).toBe(true);
  });

  it('names a forbidden member below a long member name by its first 100 characters, so the 400 stays small', () => {
    const long = 'k'.repeat(900_000);
    const text = `{"${long}":{${Array.from({ length: 150 }, () => '"__proto__":1').join(',')}}}`;
    const error = refusal(() => parseJsonText(text));
    expect(error.message).toBe('Constraints violated. (150 violations; the first 100 are listed)');
    expect(error.violations).toHaveLength(100);
    expect(new Set(error.violations?.map((v) => v.path))).toEqual(new Set([`${'k'.repeat(100)}….__proto__`]));
  });

  it('builds the paths of the first 100 forbidden members only, and counts them all', () => {
    const text = `{"a":{${Array.from({ length: 1000 }, () => '"__proto__":1').join(',')}}}`;
    expect(scanJson(text, 64)).toEqual({ ok: false, kind: 'forbidden-key', paths: Array<string>(100).fill('a.__proto__'), count: 1000 });
  });

  it('does not mistake forbidden words in values for member names', () => {
    expect(parseJsonText('{"name":"__proto__","tags":["constructor"]}')).toEqual({
      name: '__proto__',
      tags: ['constructor'],
    });
  });

  it.each([
    ['{"a":}', 'line 1 column 6'],
    ['{\n  "a": 1,\n  "b": tru\n}', 'line 3 column 8'],
    ['[1,2', 'line 1 column 5'],
    ['{"a":1}x', 'line 1 column 8'],
    ['{"a":"unterminated}', 'line 1 column 6'],
    ['{"a":01}', 'line 1 column 7'],
    ['{a:1}', 'line 1 column 2'],
    ['{"a":"\\x"}', 'line 1 column 7'],
    ['{"a":1e999}', 'line 1 column 6'],
    ['{"a":"tab\there"}', 'line 1 column 10'],
  ])('reports malformed JSON %j as a 400 with its position (%s)', (text, where) => {
    const error = refusal(() => parseJsonText(text));
    expect(error.status).toBe(400);
    expect(error.message).toContain(where);
    expect(error.message).toMatch(/^Malformed JSON near /);
  });

  it.each([
    ['a 251-digit mantissa with a 2-digit exponent', `[1${'0'.repeat(250)}e99]`],
    ['a negative 291-digit mantissa with a 2-digit exponent', `{"a":-1${'0'.repeat(290)}e20}`],
    ['a mantissa with a fraction and a signed exponent', `[1${'0'.repeat(250)}.${'0'.repeat(100)}e+60]`],
  ])('refuses %s that overflows to Infinity, as the full scan does', (_what, text) => {
    const error = refusal(() => parseJsonText(text));
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Malformed JSON near line 1 column \d+: Number out of range\.$/);
  });

  it('keeps long numbers that stay finite, whatever their exponent', () => {
    const text = `[1${'0'.repeat(250)}e-99, 1${'0'.repeat(250)}e50, 0.${'0'.repeat(300)}1e9]`;
    expect(parseJsonText(text)).toEqual(JSON.parse(text));
  });

  it('drops a leading UTF-8 byte order mark and refuses bytes that are not UTF-8', () => {
    expect(parseJsonBytes(Buffer.from('\ufeff{"a":1}', 'utf8'))).toEqual({ a: 1 });
    expect(refusal(() => parseJsonBytes(Buffer.from([0x7b, 0xff, 0x7d]))).message).toBe('The request body is not valid UTF-8.');
  });

  it('refuses an empty body', () => {
    expect(refusal(() => parseJsonText('  ')).message).toBe('The request body is empty: send a JSON document.');
  });
});

describe('content type check', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"'])(
    'accepts %s',
    (type) => expect(() => checkJsonContentType(type)).not.toThrow(),
  );
  it.each([undefined, 'text/plain', 'application/json; charset=latin1', 'application/jsonx', 'multipart/form-data'])(
    'answers 415 to %s',
    (type) => expect(refusal(() => checkJsonContentType(type)).status).toBe(415),
  );
});
