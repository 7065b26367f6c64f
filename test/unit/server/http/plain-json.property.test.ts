import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonDocument } from '../../../../src/server/http/read-body.js';
import { MAX_LAID_OUT_NAMES, scanPlainJson } from '../../../../src/server/http/plain-json.js';
import { prepareDashboard } from '../../../../src/server/store/dashboard-document.js';
import { corpusDashboardFiles } from '../../../helpers/corpus.js';

/**
 * A JSON writer that may spell a value in any way JSON allows besides JSON.stringify's: whitespace, other spellings
 * of numbers, `\/`, a member written twice, names that JavaScript moves to the front of an object. `pick` makes
 * each choice; always 0 writes exactly what JSON.stringify writes.
 */
function spell(value: unknown, pick: (options: number) => number): string {
  // Rare enough that a text usually holds one deviation alone, which must be seen by itself.
  const space = (): string => (pick(40) === 1 ? [' ', '\n  ', '\t', '\r\n'][pick(4)] ?? '' : '');
  if (typeof value === 'number') {
    const plain = JSON.stringify(value);
    if (!/^-?\d+$/.test(plain)) return plain;
    return [plain, `${plain}.0`, `${plain}e0`, value === 0 ? '-0' : plain, `${plain}E+00`, value === 0 ? '0e-1' : `${plain}0e-1`][pick(6) === 1 ? 1 + pick(5) : 0] ?? plain;
  }
  if (typeof value === 'string') {
    const plain = JSON.stringify(value);
    return pick(6) === 1 ? plain.replaceAll('/', '\\/') : plain;
  }
  if (Array.isArray(value)) return `[${space()}${value.map((item) => spell(item, pick)).join(`,${space()}`)}${space()}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}${space()}:${space()}${spell(item, pick)}`);
    // A member spelled twice (JSON.parse keeps the later one), or a name that is an array index.
    const first = Object.entries(value)[0];
    if (first && pick(10) === 1) members.push(`${JSON.stringify(first[0])}:${spell(first[1], pick)}`);
    // After the others: JavaScript moves it to the front, so JSON.stringify would not write it here.
    if (pick(15) === 1) members.push(`"${[0, 7, 9][pick(3)]}":0`);
    return `{${space()}${members.join(`,${space()}`)}${space()}}`;
  }
  return JSON.stringify(value);
}

const keys = fc.oneof(fc.constantFrom('id', 'metadata', 'tiles', 'name', 'a/b', 'x"y', 'é', '1', '07', '9', 'dashboardMetadata'), fc.string({ maxLength: 6 }));
const values = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, -0, 1e21, 1e-7, 2 ** 53 + 2)),
    fc.string({ unit: fc.constantFrom('a', '/', '"', '\\', '\n', '\t', '\b', '\f', '\r', '\u0001', '\u2028', '\u007f', 'é', '😀', ' '), maxLength: 8 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(keys, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const objects = fc.dictionary(keys, values, { maxKeys: 6 });
const spellings = fc.tuple(objects, fc.infiniteStream(fc.nat(1000))).map(([value, stream]) => {
  const choices = stream[Symbol.iterator]();
  return spell(value, (options) => (choices.next().value as number) % options);
});

describe('plain JSON: one pass finds the texts that are exactly what JSON.stringify writes', () => {
  it('says a text is canonical only when it is, and then slicing it gives what serialising the parsed body gives', () => {
    let canonical = 0;
    fc.assert(
      fc.property(fc.oneof(objects.map((value) => JSON.stringify(value)), spellings), (text) => {
        const parsed = parseJsonDocument(text);
        if (!parsed.canonical) return;
        canonical += 1;
        expect(JSON.stringify(parsed.value)).toBe(text);
        const body = parsed.value as Record<string, unknown>;
        expect(prepareDashboard(body, parsed.canonical)).toEqual(prepareDashboard(body));
      }),
      { numRuns: 3000 },
    );
    // The fast path is taken, not just allowed.
    expect(canonical).toBeGreaterThan(500);
  });

  it('lays out what JSON.stringify writes for every corpus dashboard, and slices it exactly', () => {
    const corpus = corpusDashboardFiles();
    expect(corpus.length).toBeGreaterThan(0);
    for (const { name, text: fileText } of corpus) {
      const body = JSON.parse(fileText) as Record<string, unknown>;
      const text = JSON.stringify(body);
      const scan = scanPlainJson(text, 64);
      expect(scan.plain && scan.layout, name).toBeTruthy();
      if (!scan.plain || !scan.layout) continue;
      expect(prepareDashboard(body, { text, layout: scan.layout })).toEqual(prepareDashboard(body));
      // The file's own pretty-printed text is valid but not canonical: it is serialised as before.
      const pretty = scanPlainJson(fileText, 64);
      expect(pretty.plain ? pretty.layout : undefined, name).toBeUndefined();
    }
  });

  it('gives up the layout of an object with more names than it compares, so a body of many names costs linear time', () => {
    const object = (names: number): string => `{"a":{${Array.from({ length: names }, (_, i) => `"n${i}":0`).join(',')}}}`;
    expect(scanPlainJson(object(MAX_LAID_OUT_NAMES), 64)).toMatchObject({ plain: true, layout: { members: [{ start: 1 }] } });
    expect(scanPlainJson(object(MAX_LAID_OUT_NAMES + 1), 64)).toEqual({ plain: true, layout: undefined });
    // A body near the size limit made of short distinct names: still plain, parsed and serialised the usual way.
    const many = object(90_000);
    expect(many.length).toBeLessThan(1024 * 1024);
    expect(parseJsonDocument(many).canonical).toBeUndefined();
  });

  it('refuses to lay out each non-canonical spelling on its own', () => {
    const cases = ['{"a":1.0}', '{"a":1e2}', '{"a":-0}', '{"a":"x\\/y"}', '{"a":1,"a":2}', '{"b":{"c":1,"c":1}}', '{"b":1,"0":2}', '{ "a":1}', '{"a":1}\n', '{"a":1}\r', '{\r"a":1}', '{"a":10e-1}', '{"a":[1e5]}', '[1]', '"x"', '{"a":[1, 2]}', '{"a":12345678901234567890}'];
    for (const text of cases) expect(scanPlainJson(text, 64), text).toEqual({ plain: true, layout: undefined });
    const kept = ['{"a":1.5,"b":-3,"c":0,"d":1e-7,"e":1e+21,"f":"x/y\\n\\"","g":[],"h":[{"a":1,"b":{"a":2}}],"a1":true}', '{}'];
    for (const text of kept) expect(scanPlainJson(text, 64), text).toMatchObject({ plain: true, layout: { members: expect.any(Array) as unknown } });
  });

  it('reads a string of many escapes in one pass, not one search for its end per escape', () => {
    const text = `{"a":"${'\\n'.repeat(5000)}\\"x"}`;
    // The characters every search passes over (a search that finds nothing passes over the rest of the text).
    let searched = 0;
    const counted = Object.assign(new String(text), {
      indexOf(search: string, from = 0): number {
        const at = text.indexOf(search, from);
        searched += (at === -1 ? text.length : at) - from;
        return at;
      },
    });
    expect(scanPlainJson(counted as unknown as string, 64)).toMatchObject({ plain: true, layout: { members: [{ start: 1 }] } });
    expect(searched).toBeLessThanOrEqual(2 * text.length);
  });
});
