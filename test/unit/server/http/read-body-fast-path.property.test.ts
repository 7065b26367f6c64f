import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/server/http/http-error.js';
import { scanJson } from '../../../../src/server/http/json-guard.js';
import { parseJsonText } from '../../../../src/server/http/read-body.js';

const DEPTH = 8;

/** What the full scan alone decides: the value, or that the body is refused. */
function scanOnly(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '' || !scanJson(text, DEPTH).ok) return { ok: false };
  return { ok: true, value: JSON.parse(text) as unknown };
}

function viaParse(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseJsonText(text, DEPTH) };
  } catch (error) {
    if (!(error instanceof HttpError) || error.status !== 400) throw error;
    return { ok: false };
  }
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

/** Numbers near the double range's edge: up to 330 digits around a point, then an exponent of 0 to 3 digits. */
const longNumbers = fc
  .record({
    sign: fc.constantFrom('', '-'),
    whole: fc.integer({ min: 1, max: 330 }),
    fraction: fc.integer({ min: 0, max: 120 }),
    mark: fc.constantFrom('', 'e', 'E', 'e+', 'e-', 'E-'),
    exponent: fc.integer({ min: 0, max: 400 }),
  })
  .map(({ sign, whole, fraction, mark, exponent }) => {
    const digits = `${sign}9${'0'.repeat(whole - 1)}${fraction > 0 ? `.${'5'.repeat(fraction)}` : ''}`;
    return `[${digits}${mark === '' ? '' : `${mark}${exponent}`}]`;
  });

describe('parseJsonText fast path', () => {
  it('accepts and refuses exactly what the full scan does (values, depth limits, forbidden names, garbage)', () => {
    const texts = fc.oneof(
      fc.json({ maxDepth: 10 }),
      fc.jsonValue({ maxDepth: 10 }).map((v) => JSON.stringify(v, null, 2)),
      fc.integer({ min: DEPTH - 1, max: DEPTH + 1 }).map(nested),
      fc.constantFrom('{"__proto__":{}}', '{"a":{"constructor":1}}', '{"__pro\\u0074o__":1}', '{"s":"__proto__"}', '["\\"[[[[[[[[[["]', '{"a":', '{}x', '  ', '{"a":1e999}', '[-2e308]', `[1${'0'.repeat(400)}]`, '[1e-999]'),
      // Forbidden names only as whole member names; an escaped backslash before `u` is no `\u` escape.
      // A name-like string inside an array (invalid): refused as malformed, never a crash.
      fc.constantFrom('{"a":["b":1]}', '{"a":{"b":["c":{}]}}'),
      fc.constantFrom('{"prototype":[]}', '{"xconstructorx":1}', '{"a":"constructor"}', '["\\\\u0041"]', '{"\\\\":{"__proto__":1}}', '{"\\"__proto__":1}'),
      fc.string(),
      longNumbers,
    );
    fc.assert(
      fc.property(texts, (text) => {
        expect(viaParse(text)).toEqual(scanOnly(text));
      }),
      { numRuns: 2000 },
    );
  });
});
