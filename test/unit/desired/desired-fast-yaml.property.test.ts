import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify, type ToStringOptions } from 'yaml';
import { fastParseYaml } from '../../../src/desired/fast-yaml/fast-parse.js';
import { exact, expectAgreement } from '../../helpers/yaml-agreement.js';

const TRICKY_SCALARS = [
  '', ' ', 'x', 'x y', ' lead', 'trail ', 'a  b', '1', '-1', '+1', '007', '0o17', '0x1F', '0xG', '1e3', '1E-3', '.5', '5.',
  '-.inf', '.Inf', '.NaN', '.nan', 'nan', 'true', 'True', 'TRUE', 'tRUE', 'false', 'yes', 'no', 'on', 'off', 'y', 'null',
  'Null', 'NULL', '~', '-', '- x', '-x', '?', '? x', ':', ': x', ':x', 'x:', 'x: y', 'x:y', '#', '# x', 'x #y', 'x#y', '&a',
  '*a', '!t', '|', '>', '%', '@', '`', '"', "'", "it's", 'say "hi"', '[', ']', '{', '}', ',', 'a, b', '[a]', '{a: 1}',
  'http://example.com/a?b=c#d', 'line\nbreak', 'two\n\nbreaks', 'end\n', 'end\n\n', '\nstart', '  indented\nlines',
  'a\\b', '\u00e9t\u00e9', '\u{1f600}', '\u2028', '\u0085', '\x07', '---', '...', '--- x', 'x\n---\ny', '\\n', '12:30',
  '2024-01-01', '1_000', '0b101', '__proto__', '<<', 'x'.repeat(120), 'word '.repeat(30).trim(),
];

const scalar = fc.oneof(
  fc.constantFrom(...TRICKY_SCALARS),
  fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', '#', '-', '\n', '"', "'", '\\', '1', '.', '[', '{', ',', '|') }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
);

const key = fc.oneof(fc.constantFrom(...TRICKY_SCALARS.filter((s) => s.length < 40)), fc.string({ maxLength: 6 }));

const value: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  ),
})).node;

const options: fc.Arbitrary<ToStringOptions> = fc.record({
  lineWidth: fc.constantFrom(0, 20, 40, 80),
  minContentWidth: fc.constantFrom(0, 20),
  indent: fc.constantFrom(2, 3, 4),
  indentSeq: fc.boolean(),
  blockQuote: fc.constantFrom(true, false, 'literal' as const, 'folded' as const),
  collectionStyle: fc.constantFrom('any' as const, 'block' as const, 'flow' as const),
  defaultStringType: fc.constantFrom('PLAIN' as const, 'QUOTE_DOUBLE' as const, 'QUOTE_SINGLE' as const, 'BLOCK_LITERAL' as const),
  defaultKeyType: fc.constantFrom(null, 'PLAIN' as const, 'QUOTE_DOUBLE' as const),
});

/** What dashboards hold: identifier keys; text with punctuation, quotes, `#`, `: ` and line breaks; numbers. */
const realistic: fc.Arbitrary<unknown> = fc.letrec<{ node: unknown }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .string({ unit: fc.constantFrom('a', 'Z', '7', ' ', ':', '#', '"', "'", '\n', '-', '(', ')', '=', ',', '.', '/', '*', '[', '{') })
      .filter((text) => !/(^|\n) +(\n|$)/.test(text)),
    fc.integer(),
    fc.double({ noDefaultInfinity: true, noNaN: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 4 }),
    fc.dictionary(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,8}$/), tie('node'), { maxKeys: 4 }),
  ),
})).node;

/** Line-level damage that keeps text YAML-like: the fast path must decline or still agree. */
const edit = fc.oneof(
  fc.record({ kind: fc.constant('indent' as const), line: fc.nat(), by: fc.integer({ min: -2, max: 2 }) }),
  fc.record({ kind: fc.constant('insert' as const), line: fc.nat(), text: fc.constantFrom('', '  ', '# c', '  # c', '---', '...', '- x', 'k: v', '  more', '\tx', 'x: |', ' ]', '}') }),
  fc.record({ kind: fc.constant('append' as const), line: fc.nat(), text: fc.constantFrom(' ', ' # c', '#c', ':', ': x', ' x', ',', ' - y', '"', "'") }),
);

// Structured random YAML text: nodes rendered by hand with random indentation, styles and noise.
type R = fc.Arbitrary<(indent: number, inline: boolean) => string>;
const word = fc.constantFrom('a', 'b c', 'x:y', 'x #y', 'x#y', '1', '-2', '0.5', 'true', 'null', '~', 'é', 'a"b', "a'b", '-x', ':x', '?x', 'x:', 'x: y', '[x]', '{x}', 'x, y', '', ' ', '\\n');
const plain = fc.array(word, { minLength: 1, maxLength: 3 }).map((ws) => ws.join(' '));
const sp = fc.integer({ min: 0, max: 3 }).map((n) => ' '.repeat(n));
const scalarR: R = fc.oneof(
  plain.map((p) => () => p),
  fc.tuple(fc.array(plain, { minLength: 2, maxLength: 3 }), fc.integer({ min: -1, max: 3 }), fc.boolean()).map(([ps, d, blank]) => (ind: number) => ps.join('\n' + (blank ? '\n' : '') + ' '.repeat(Math.max(0, ind + d)))),
  fc.tuple(fc.array(plain, { minLength: 1, maxLength: 3 }), fc.integer({ min: -1, max: 3 }), fc.constantFrom('"', "'")).map(([ps, d, q]) => (ind: number) => q + ps.join('\n' + ' '.repeat(Math.max(0, ind + d))) + q),
  fc.tuple(fc.constantFrom('|', '|-', '|+', '>', '>-', '>+', '|1', '|2', '>2-', '|+1'), fc.array(fc.tuple(fc.integer({ min: -1, max: 3 }), plain), { maxLength: 4 }), fc.integer({ min: 1, max: 3 }), sp).map(([h, ls, base, trail]) => (ind: number) =>
    h + ls.map(([d, t]) => '\n' + ' '.repeat(Math.max(0, ind + base + d)) + t).join('') + '\n' + trail),
  fc.constantFrom('[]', '{}', '[a, b]', '[1, "x", {k: v}]', '{a: 1, "b": [2]}', '[\n  a]', '{"k":1}', '[a,]', '{a}', '[a: b]').map((f) => () => f),
);
const keyR = fc.constantFrom('a', 'b', 'c', '"d"', "'e'", 'f g', 'id', 'a', 'x-y', '1x');
const nodeR: fc.Arbitrary<(indent: number) => string> = fc.letrec<{ node: (indent: number) => string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalarR.map((f) => (ind: number) => ' ' + f(ind, true)),
    fc.tuple(fc.array(fc.tuple(keyR, tie('node'), fc.constantFrom('', '', '\n', '\n# c', '\n  # c', ' # c')), { minLength: 1, maxLength: 3 }), fc.integer({ min: 1, max: 3 }), fc.boolean())
      .map(([entries, step, sameLine]) => (ind: number) => {
        const inner = ind + step;
        return (sameLine ? '' : '') + entries.map(([k, v, noise], i) => '\n' + ' '.repeat(inner) + k + ':' + v(inner) + noise).join('');
      }),
    fc.tuple(fc.array(fc.tuple(tie('node'), fc.boolean()), { minLength: 1, maxLength: 3 }), fc.integer({ min: 0, max: 2 }))
      .map(([items, step]) => (ind: number) => items.map(([v, compact]) => '\n' + ' '.repeat(ind + step) + '-' + (compact ? v(ind + step + 2).replace(/^\n */, ' ') : v(ind + step))).join('')),
  ),
})).node;
const handWritten = fc.tuple(fc.array(fc.tuple(keyR, nodeR), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '---\n', '# c\n', '\n')).map(([es, pre]) => pre + es.map(([k, v]) => k + ':' + v(0)).join('\n') + '\n');

function applyEdits(source: string, edits: readonly object[]): string {
  const lines = source.split('\n');
  for (const e of edits as { kind: string; line: number; by?: number; text?: string }[]) {
    const at = e.line % Math.max(1, lines.length);
    const line = lines[at] ?? '';
    if (e.kind === 'indent') lines[at] = (e.by ?? 0) > 0 ? ' '.repeat(e.by ?? 0) + line : line.slice(-(e.by ?? 0));
    else if (e.kind === 'insert') lines.splice(at, 0, e.text ?? '');
    else lines[at] = line + (e.text ?? '');
  }
  return lines.join('\n');
}

describe('fast YAML path', () => {
  it('agrees with yaml on every document it accepts: stringified values in every style', () => {
    fc.assert(fc.property(value, options, (v, o) => void expectAgreement(stringify(v, { ...o, aliasDuplicateObjects: false }))), {
      numRuns: 800,
    });
  });

  it('agrees with yaml on every document it accepts: damaged documents', () => {
    fc.assert(
      fc.property(value, options, fc.array(edit, { minLength: 1, maxLength: 4 }), (v, o, edits) => {
        void expectAgreement(applyEdits(stringify({ root: v, other: 1 }, o), edits));
      }),
      { numRuns: 1500 },
    );
  });

  it('agrees with yaml on every document it accepts: hand-written styles, odd indentation, noise', () => {
    fc.assert(fc.property(handWritten, (source) => void expectAgreement(source)), { numRuns: 2500 });
  });

  it('agrees with yaml on CRLF documents, which it reads as LF', () => {
    fc.assert(fc.property(handWritten, (source) => void expectAgreement(source.replace(/\n/g, '\r\n'))), { numRuns: 1000 });
    expect(expectAgreement('a: |\r\n  x\r\n\r\n  y\r\nb: "p\r\n  q"\r\n')).toBe(true);
  });

  it('takes the fast path for dashboard-like documents as yaml writes them by default', () => {
    fc.assert(
      fc.property(realistic, realistic, (metadata, tiles) => {
        const source = stringify({ dashboardMetadata: metadata, tiles }, { aliasDuplicateObjects: false });
        expect(expectAgreement(source), source).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it.each([
    ['a: 1\na: 2\n'],
    ['a: "x\ny"\n'],
    ['a:\n  - "x\n  y"\n'],
    ['- a: |\n  x\n'],
    ['a: 1\n---\nb: 2\n'],
    ['a: -\n'],
    ['a: b: c\n'],
    ['a: [1, 2\nb: c\n'],
    ['a: &x 1\nb: *x\n'],
    ['a:\n\tb: 1\n'],
    ['a: 1\rb: 2\r'],
    ['- 1\n- 2\n'],
    ['just a scalar\n'],
    [''],
  ])('declines what it does not mirror exactly: %j', (source) => {
    expect(fastParseYaml(source).ok).toBe(false);
  });

  it.each([
    ['a: 1\nb:\n  - x\n  - y: 2\n    z: [1, "two", {c: null}]\n', { a: 1, b: ['x', { y: 2, z: [1, 'two', { c: null }] }] }],
    ['# yaml-language-server: $schema=x\n---\nk: |\n  one\n   two\n\n  three\nn: >-\n  folded\n  text\n', { k: 'one\n two\n\nthree\n', n: 'folded text' }],
    ['{\n  "a": [1, 2.5, -0, 1e3],\n  "b": {"c": "\\u00e9\\n"}\n}\n', { a: [1, 2.5, -0, 1000], b: { c: '\u00e9\n' } }],
    ['a: on\nb: yes\nc: 0o10\nd: 0x10\ne: .inf\nf: ~\n', { a: 'on', b: 'yes', c: 8, d: 16, e: Infinity, f: null }],
  ])('parses %j like yaml', (source, expected) => {
    expect(expectAgreement(source)).toBe(true);
    expect(exact((fastParseYaml(source) as { value: unknown }).value)).toBe(exact(expected));
  });
});
