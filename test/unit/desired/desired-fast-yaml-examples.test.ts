import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseDocument } from 'yaml';
import { exact } from '../../helpers/yaml-agreement.js';

type FastParse = typeof import('../../../src/desired/fast-yaml/fast-parse.js');
type Scalars = typeof import('../../../src/desired/fast-yaml/scalars.js');

/**
 * Each test loads the fast parser afresh, so its module-level tables (the core schema's regular expressions, the
 * escape table, the indicator sets) are built inside the test: a mutation run then counts them as covered by the
 * tests that read them, not by whichever test first happened to load the module.
 */
let fastParseYaml: FastParse['fastParseYaml'];
let scalars: Scalars;
beforeEach(async () => {
  vi.resetModules();
  scalars = await import('../../../src/desired/fast-yaml/scalars.js');
  ({ fastParseYaml } = await import('../../../src/desired/fast-yaml/fast-parse.js'));
});

/**
 * Hand-written examples for the fast YAML path, one branch each. An accepted snippet states its value by hand, and
 * the test checks that both the fast path and `yaml` (the reference the fast path must equal) give it. A declined
 * snippet is one `yaml` reports as an error, or one outside the subset the fast path documents (tabs, anchors, tags,
 * directives, indentation it leaves to `yaml`): the fast path must answer `{ ok: false }` so the caller uses `yaml`.
 */
type Accepted = readonly [source: string, expected: unknown];
type Declined = readonly [source: string, why: string];

function expectAccepted(source: string, expected: unknown): void {
  const doc = parseDocument(source);
  expect(doc.errors.map((e) => e.message), 'yaml reads it without error').toEqual([]);
  expect(exact(doc.toJS()), 'yaml agrees with the hand-written value').toBe(exact(expected));
  const fast = fastParseYaml(source);
  expect(fast.ok, 'the fast path answers').toBe(true);
  expect(exact(fast.ok ? fast.value : undefined)).toBe(exact(expected));
}

function expectDeclined(source: string): void {
  expect(fastParseYaml(source)).toEqual({ ok: false });
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

const name = (source: string): string => JSON.stringify(source.length > 70 ? `${source.slice(0, 70)}…` : source);

describe('fast YAML path: input characters (fast-parse)', () => {
  const accepted: Accepted[] = [
    ['a: 1\r\nb: 2\r\n', { a: 1, b: 2 }],
    ['a: |\r\n  x\r\n  y\r\n', { a: 'x\ny\n' }],
    ['a: "q"\r\n', { a: 'q' }],
    ['a: x\ufeff\n', { a: 'x\ufeff' }],
    ['{\r\na: 1}\r\n', { a: 1 }],
  ];
  const declined: Declined[] = [
    ['a: b\tc\n', 'a tab'],
    ['\ufeffa: 1\n', 'a byte-order mark at the start'],
    ['a: 1\rb: 2\n', 'a lone carriage return (yaml: error)'],
    ['a: 1\r\nb: 2\r', 'a lone carriage return at the end, after a CRLF'],
    ['a: 1\r', 'a lone carriage return at the very end'],
    ['a\rb: 1\n', 'a lone carriage return (yaml: text) as the second character'],
    ['a: 1\n... x:\n  b: 2\n', 'a document end marker at the margin with a key after it (yaml: error)'],
    ['a: 1\n...\n', 'a document end marker at the margin'],
    ['a: 1\n--- b: 2\n', 'a second document at the margin'],
  ];
  it.each(accepted)('accepts %j', (source, expected) => expectAccepted(source, expected));
  it.each(declined)('declines %j (%s)', (source) => expectDeclined(source));

  it('declines nesting deep enough to overflow the stack, instead of throwing', () => {
    const depth = 100_000;
    expectDeclined(`a: ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
  });
});

describe('fast YAML path: plain scalars (core schema)', () => {
  const values: Accepted[] = [
    ['~', null], ['null', null], ['Null', null], ['NULL', null], ['nULL', 'nULL'], ['nul', 'nul'], ['n', 'n'], ['N', 'N'],
    ['~x', '~x'], ['null x', 'null x'], ['Nullx', 'Nullx'], ['None', 'None'],
    ['true', true], ['True', true], ['TRUE', true], ['false', false], ['False', false], ['FALSE', false],
    ['tRUE', 'tRUE'], ['t', 't'], ['T', 'T'], ['f', 'f'], ['F', 'F'], ['yes', 'yes'], ['truex', 'truex'], ['Falsey', 'Falsey'],
    ['0', 0], ['7', 7], ['9', 9], ['99', 99], ['-12', -12], ['+12', 12], ['007', 7], ['12a', '12a'], ['1_000', '1_000'], ['a12', 'a12'], ['x1', 'x1'],
    ['0o17', 15], ['0o10', 8], ['0o8', '0o8'], ['0O17', '0O17'], ['0o', '0o'], ['x0o17', 'x0o17'], ['0o17x', '0o17x'],
    ['0x1F', 31], ['0x1f', 31], ['0xff', 255], ['0xG', '0xG'], ['0X1F', '0X1F'], ['0x', '0x'], ['0x1Fz', '0x1Fz'],
    ['.inf', Infinity], ['.Inf', Infinity], ['.INF', Infinity], ['+.inf', Infinity], ['-.inf', -Infinity], ['-.Inf', -Infinity],
    ['.iNf', '.iNf'], ['.infx', '.infx'], ['x.inf', 'x.inf'],
    ['.nan', NaN], ['.NaN', NaN], ['.NAN', NaN], ['-.nan', '-.nan'], ['.nAn', '.nAn'], ['.nanx', '.nanx'],
    ['1e3', 1000], ['1E-3', 0.001], ['.5e2', 50], ['1.e2', 100], ['+1e+2', 100], ['-2.5e1', -25], ['1e', '1e'], ['1e3x', '1e3x'],
    ['1.5', 1.5], ['.5', 0.5], ['5.', 5], ['-.5', -0.5], ['+1.', 1], ['1.2.3', '1.2.3'], ['.', '.'], ['+', '+'],
    ['12e1', 120], ['.55e1', 5.5], ['1e12', 1e12], ['12.5', 12.5], ['.25', 0.25], ['1.25e1', 12.5], ['0o777', 511],
    ['10o17', '10o17'], ['10x1F', '10x1F'], ['1.inf', '1.inf'], ['ttrue', 'ttrue'], ['Ffalse', 'Ffalse'], ['nnull', 'nnull'],
    ['1x1e3', '1x1e3'], ['1x.5', '1x.5'], ['1.5x', '1.5x'], ['x1.5', 'x1.5'], ['-0', -0], ['2024-01-01', '2024-01-01'], ['12:30', '12:30'],
  ];
  it.each(values)('resolves %j', (text, expected) => {
    expect(exact(scalars.resolvePlain(text))).toBe(exact(expected));
    expectAccepted(`a: ${text}\n`, { a: expected });
  });

  it('reads integers that reach the API as written, and declines one whose digits would change (yaml then reports it)', () => {
    const exact = [['9007199254740991', 9007199254740991], ['-9007199254740991', -9007199254740991], ['9007199254740992', 2 ** 53], ['123456789012345680000', 123456789012345680000], ['0x1FFFFFFFFFFFFF', 9007199254740991], ['0o400000000000000000', 2 ** 53]] as const;
    for (const [text, value] of exact) expect(scalars.resolvePlain(text)).toBe(value);
    for (const text of ['9007199254740993', '-9007199254740993', '1702373595732123456', '0x20000000000001', '0o400000000000000001']) {
      expect(thrown(() => scalars.resolvePlain(text)), text).toBe(scalars.BAIL);
      expectDeclined(`a: ${text}\n`);
    }
    expect(thrown(() => scalars.resolvePlain('9'.repeat(1_000)))).toBe(scalars.BAIL);
    // A float is a float: its digits were never meant to be exact.
    expect(scalars.resolvePlain('1.5e300')).toBe(1.5e300);
  });

  it('resolves the empty scalar to null and a lone dash (a sequence entry in a file) to a string', () => {
    expect(scalars.resolvePlain('')).toBeNull();
    expect(scalars.resolvePlain('-')).toBe('-');
  });

  const keys: Accepted[] = [
    ['nul: 1\n', { nul: 1 }],
    ['truex: 1\n', { truex: 1 }],
    ['x1: 1\n', { x1: 1 }],
  ];
  const nonStringKeys: Declined[] = [
    ['1: x\n', 'an integer key'],
    ['true: x\n', 'a boolean key'],
    ['null: x\n', 'a null key'],
    ['~: x\n', 'a null key'],
    ['{1: x}\n', 'an integer key in a flow mapping'],
    ['{true: x}\n', 'a boolean key in a flow mapping'],
  ];
  it.each(keys)('accepts the string key in %j', (source, expected) => expectAccepted(source, expected));
  it.each(nonStringKeys)('declines %j (%s: JavaScript objects have string keys only)', (source) => expectDeclined(source));
});

describe('fast YAML path: quoted scalars', () => {
  const accepted: Accepted[] = [
    ["a: 'it''s'\n", { a: "it's" }],
    ["a: 'a''b''c'\n", { a: "a'b'c" }],
    ["a: ''\n", { a: '' }],
    ["a: ''''\n", { a: "'" }],
    ["a: 'x\n  y'\n", { a: 'x y' }],
    ["a: 'one  \n   two  \n\n  three'\n", { a: 'one two\nthree' }],
    ["a: 'x\n\n\n  y'\n", { a: 'x\n\ny' }],
    ["a: 'x\n  y  '\n", { a: 'x y  ' }],
    ["a: 'x\n  it''s'\n", { a: "x it's" }],
    ['a: ""\n', { a: '' }],
    ['a: "a  b"\n', { a: 'a  b' }],
    ['a: "a  b\\n"\n', { a: 'a  b\n' }],
    ['a: "x\\"y"\n', { a: 'x"y' }],
    ['a: "x\\\\"\n', { a: 'x\\' }],
    ['a: "x\\\\\\"y"\n', { a: 'x\\"y' }],
    ['a: "\\0\\a\\b\\e\\f"\n', { a: '\0\x07\b\x1b\f' }],
    ['a: "\\n\\r\\t\\v"\n', { a: '\n\r\t\v' }],
    ['a: "\\N\\_\\L\\P"\n', { a: '\u0085\u00a0\u2028\u2029' }],
    ['a: "\\ \\"\\/\\\\"\n', { a: ' "/\\' }],
    ['a: "\\x41B"\n', { a: 'AB' }],
    ['a: "\\x4a\\x4A"\n', { a: 'JJ' }],
    ['a: "\\u00e9t\\u00E9"\n', { a: '\u00e9t\u00e9' }],
    ['a: "\\U0001F600!"\n', { a: '\u{1f600}!' }],
    ['a: "\\U0010FFFF"\n', { a: '\u{10ffff}' }],
    ['a: "x\n  y"\n', { a: 'x y' }],
    ['a: "x\n\n  y"\n', { a: 'x\ny' }],
    ['a: "x\n\n\n  y"\n', { a: 'x\n\ny' }],
    ['a: "x   \n  y"\n', { a: 'x y' }],
    ['a: "x  \\n  y"\n', { a: 'x  \n  y' }],
    ['a: "x\\\n   y"\n', { a: 'xy' }],
    ['a: "x\\\n\n   y"\n', { a: 'x y' }],
    ['a: "x\n  \\ty"\n', { a: 'x \ty' }],
    ['a:\n  b: "x\n   y"\n', { a: { b: 'x y' } }],
    ['a: "x" # c\n', { a: 'x' }],
    ['a: "x\n  y"\nb: 1\n', { a: 'x y', b: 1 }],
    ["a: 'x'  \n", { a: 'x' }],
  ];
  const declined: Declined[] = [
    ['a: "\\q"\n', 'an unknown escape (yaml: error)'],
    ['a: "\\q0000004A"\n', 'an unknown escape followed by hex digits (yaml: error)'],
    ['a: "\\x4"\n', 'a short \\x escape (yaml: error)'],
    ['a: "\\x4g"\n', 'a \\x escape with a non-hex digit (yaml: error)'],
    ['a: "\\xg4"\n', 'a \\x escape with a non-hex digit first (yaml: error)'],
    ['a: "\\u00e"\n', 'a short \\u escape (yaml: error)'],
    ['a: "\\U00110000"\n', 'a code point past U+10FFFF (yaml: error)'],
    ['a: "x\n"\n', 'the closing quote not indented (yaml: error)'],
    ['a: "x\ny"\n', 'a continuation line not indented (yaml: error)'],
    ['a:\n  b: "x\n  y"\n', 'a continuation line at the key’s indentation (yaml: error)'],
    ["a: 'x\ny'\n", 'a single-quoted continuation line not indented (yaml: error)'],
    ['a: "x\n', 'no closing quote (yaml: error)'],
    ["a: 'x\n", 'no closing single quote (yaml: error)'],
    ['a: "x\\"\n', 'the only closing quote is escaped (yaml: error)'],
    ['a: "x" y\n', 'text after the closing quote (yaml: error)'],
    ["a: 'x'y\n", 'text right after the closing quote (yaml: error)'],
    ['a: "x"#c\n', 'a comment without a space before it (yaml: error)'],
  ];
  it.each(accepted)('accepts %j', (source, expected) => expectAccepted(source, expected));
  it.each(declined)('declines %j (%s)', (source) => expectDeclined(source));

  it('reads the escapes the fast path cannot see in a file (a tab after a backslash) as yaml does', () => {
    expect(scalars.doubleQuotedValue('a\\\tb')).toBe('a\tb');
    expect(parseDocument('a: "x\\\ty"\n').toJS()).toEqual({ a: 'x\ty' });
  });

  it('throws BAIL (the fast path declines, it does not fail) for a trailing backslash and a code point past U+10FFFF', () => {
    expect(thrown(() => scalars.doubleQuotedValue('a\\'))).toBe(scalars.BAIL);
    expect(thrown(() => scalars.doubleQuotedValue('\\U00110000'))).toBe(scalars.BAIL);
    expect(thrown(() => scalars.doubleQuotedValue('\\xg4'))).toBe(scalars.BAIL);
    expect(thrown(() => scalars.doubleQuotedValue('\\ug041'))).toBe(scalars.BAIL);
  });

  it('folds lines as yaml does: spaces around a break dropped, an empty line kept as a break', () => {
    expect(scalars.unfoldLines('one')).toBe('one');
    expect(scalars.unfoldLines('one  \n  two')).toBe('one two');
    expect(scalars.unfoldLines('one\n\n  two')).toBe('one\ntwo');
    expect(scalars.unfoldLines('one\n  \n\n two  ')).toBe('one\n\ntwo  ');
  });
});

describe('fast YAML path: block scalars', () => {
  const accepted: Accepted[] = [
    ['a: |\n  x\n  y\n', { a: 'x\ny\n' }],
    ['a: |\n  x\n   y\n  z\n', { a: 'x\n y\nz\n' }],
    ['a: |-\n  x\n  y\n', { a: 'x\ny' }],
    ['a: |+\n  x\n\n\nb: 1\n', { a: 'x\n\n\n', b: 1 }],
    ['a: |+\n  x\nb: 1\n', { a: 'x\n', b: 1 }],
    ['a: |+\n  x', { a: 'x\n' }],
    ['a: |+\n\n\nb: 1\n', { a: '\n\n', b: 1 }],
    ['a: |+\nb: 1\n', { a: '', b: 1 }],
    ['a: |-\n\n\nb: 1\n', { a: '', b: 1 }],
    ['a: |\n\n\nb: 1\n', { a: '', b: 1 }],
    ['a: |\nb: 1\n', { a: '', b: 1 }],
    ['a: |', { a: '' }],
    ['a: |\n', { a: '' }],
    ['a: |\n  x', { a: 'x\n' }],
    ['a: | # note\n  x\n', { a: 'x\n' }],
    ['a: |  \n  x\n', { a: 'x\n' }],
    ['a: |\n\n  x\n', { a: '\nx\n' }],
    ['a: |\n \n  x\n', { a: '\nx\n' }],
    ['a: |\n  x\n\n  y\n', { a: 'x\n\ny\n' }],
    ['a: |\n  x\n     \n  y\n', { a: 'x\n   \ny\n' }],
    ['a: |\n    \nb: 1\n', { a: '', b: 1 }],
    ['a: |\n  x\n\nb: 1\n', { a: 'x\n', b: 1 }],
    ['a: |-\n  x\n\nb: 1\n', { a: 'x', b: 1 }],
    ['a: |2\n   x\n', { a: ' x\n' }],
    ['a: |1\n  x\n', { a: ' x\n' }],
    ['a: |2\n    \n  x\n', { a: '  \nx\n' }],
    ['a: |2-\n   x\n', { a: ' x' }],
    ['a: |-2\n   x\n', { a: ' x' }],
    ['a: |+1\n  x\n\n', { a: ' x\n\n' }],
    ['a: |9\n          x\n', { a: ' x\n' }],
    ['a: |\n  x\n  \nb: 1\n', { a: 'x\n', b: 1 }],
    ['a: |\n  \n  x\n', { a: '\nx\n' }],
    ['a: |+\n  \nb: 1\n', { a: '\n', b: 1 }],
    ['a: |+\n  x\n  \nb: 1\n', { a: 'x\n\n', b: 1 }],
    ['a: >1\n  x\n', { a: ' x\n' }],
    ['a: >2\n\n    y\n  z\n', { a: '\n  y\nz\n' }],
    ['a: >2\n    \n  x\n', { a: '  \nx\n' }],
    ['a:\n  b: |1\n    x\n', { a: { b: ' x\n' } }],
    ['a:\n  b: |\n    x\n  c: 1\n', { a: { b: 'x\n', c: 1 } }],
    ['a:\n  - |\n    x\n  - y\n', { a: ['x\n', 'y'] }],
    ['a:\n  - >-\n    x\n    y\n', { a: ['x y'] }],
    ['a: >\n  x\n  y\n', { a: 'x y\n' }],
    ['a: >\n  x\n\n  y\n', { a: 'x\ny\n' }],
    ['a: >\n  x\n\n\n  y\n', { a: 'x\n\ny\n' }],
    ['a: >\n  x\n    y\n  z\n', { a: 'x\n  y\nz\n' }],
    ['a: >\n  x\n\n    y\n  z\n', { a: 'x\n\n  y\nz\n' }],
    ['a: >\n  x\n    y\n    w\n  z\n', { a: 'x\n  y\n  w\nz\n' }],
    ['a: >\n  x\n    y\n\n  z\n', { a: 'x\n  y\n\nz\n' }],
    ['a: >\n  x\n    y\n  z\n\n    w\n', { a: 'x\n  y\nz\n\n  w\n' }],
    ['a: >\n  x\n     \n  y\n', { a: 'x\n   \ny\n' }],
    ['a: >-\n  x\n  y\n', { a: 'x y' }],
    ['a: >+\n  x\n\n', { a: 'x\n\n' }],
  ];
  const declined: Declined[] = [
    ['a: |x\n  y\n', 'text right after the indicator (yaml: error)'],
    ['a: | x\n  y\n', 'text after the header (yaml: error)'],
    ['a: |#c\n  y\n', 'a comment without a space (yaml: error)'],
    ['a: |0\n  x\n', 'indentation indicator 0 (yaml: error)'],
    ['a: |--\n  x\n', 'two chomping indicators (yaml: error)'],
    ['a: |-+\n  x\n', 'two chomping indicators (yaml: error)'],
    ['a: |22\n  x\n', 'two indentation indicators (yaml: error)'],
    ['a: |:\n  x\n', 'a colon after the indicator (yaml: error)'],
    ['a: |:\n          x\n', 'a colon after the indicator, content indented ten (yaml: error)'],
    ['a: |/\n  x\n', 'a slash after the indicator (yaml: error)'],
    ['a: |\n    \n  x\n', 'a leading blank line deeper than the content (yaml: error)'],
    ['a: |\n  x\n    \nb: 1\n', 'a trailing blank line deeper than the content: left to yaml'],
    ['a: |\n  x\n  ', 'a last line of only spaces without a line break: left to yaml'],
    ['a: |\n  x\n y\n', 'a line less indented than the content, more than the key (yaml: error)'],
    ['a:\n  b: |\n  x\n', 'content at the key’s own indentation ends the scalar; `x` then is no key (yaml: error)'],
  ];
  it.each(accepted)('accepts %j', (source, expected) => expectAccepted(source, expected));
  it.each(declined)('declines %j (%s)', (source) => expectDeclined(source));

  it('folds and chomps given lines as yaml does', () => {
    const line = (indent: number, content: string) => ({ indent, content });
    expect(scalars.blockScalarValue([], 2, false, false)).toBe('');
    expect(scalars.blockScalarValue([line(2, 'x'), line(2, 'y')], 2, true, false)).toBe('x y\n');
    expect(scalars.blockScalarValue([line(2, 'x'), line(2, 'y')], 2, true, true)).toBe('x y');
    expect(scalars.blockScalarValue([line(4, ''), line(2, 'x')], 2, false, true)).toBe('  \nx');
  });
});

describe('fast YAML path: block collections', () => {
  const accepted: Accepted[] = [
    ['a: 1\n', { a: 1 }],
    ['a: 1', { a: 1 }],
    ['a: 1\nb: 2\n', { a: 1, b: 2 }],
    ['b: 1\na: 2\n', { b: 1, a: 2 }],
    ['---\na: 1\n', { a: 1 }],
    ['--- # c\na: 1\n', { a: 1 }],
    ['---\n\n# c\na: 1\n', { a: 1 }],
    ['# c\n\n  # d\na: 1\n', { a: 1 }],
    ['a: 1\n# c', { a: 1 }],
    ['a: 1\n\n   ', { a: 1 }],
    ['a: 1\n   \n# c\n', { a: 1 }],
    ['a:\n', { a: null }],
    ['a:', { a: null }],
    ['a:\n\n# c\n', { a: null }],
    ['a:\nb: 1\n', { a: null, b: 1 }],
    ['a: # c\n  b: 1\n', { a: { b: 1 } }],
    ['a:    \n  b: 1\n', { a: { b: 1 } }],
    ['a:\n  b: 1\nc: 2\n', { a: { b: 1 }, c: 2 }],
    ['a:\n  b:\n    c: 1\n  d: 2\ne: 3\n', { a: { b: { c: 1 }, d: 2 }, e: 3 }],
    ['a:\n  b:\n    c: 1\nd: 2\n', { a: { b: { c: 1 } }, d: 2 }],
    ['a:\n- x\n- y\n', { a: ['x', 'y'] }],
    ['a:\n- x\nb: 1\n', { a: ['x'], b: 1 }],
    ['a:\n  - x\n  - y\n', { a: ['x', 'y'] }],
    ['a:\n  - x\nb: 1\n', { a: ['x'], b: 1 }],
    ['a:\n  b:\n    - x\n  c: 1\n', { a: { b: ['x'], c: 1 } }],
    ['a:\n  b:\n  - x\n  c: 1\n', { a: { b: ['x'], c: 1 } }],
    ['a:\n  -   b: 1\n      c: 2\n', { a: [{ b: 1, c: 2 }] }],
    ['a:\n  - b: 1\n    c: 2\n  - d: 3\n', { a: [{ b: 1, c: 2 }, { d: 3 }] }],
    ['a:\n  - - x\n    - y\n  - z\n', { a: [['x', 'y'], 'z'] }],
    ['a:\n  - - x\nb: 1\n', { a: [['x']], b: 1 }],
    ['a:\n  -\n  - x\n', { a: [null, 'x'] }],
    ['a:\n  -\n    b: 1\n', { a: [{ b: 1 }] }],
    ['a:\n  -\n    - x\n', { a: [['x']] }],
    ['a:\n- x\n-', { a: ['x', null] }],
    ['a:\n- x\n-\n', { a: ['x', null] }],
    ['a:\n- # note: x\n- y\n', { a: [null, 'y'] }],
    ['a:\n- "b": 1\n', { a: [{ b: 1 }] }],
    ["a:\n- 'b': 1\n", { a: [{ b: 1 }] }],
    ['a:\n- "b":\n', { a: [{ b: null }] }],
    ['a:\n- "b":', { a: [{ b: null }] }],
    ['a:\n- "b"\n', { a: ['b'] }],
    ['a:\n- "b: c"\n', { a: ['b: c'] }],
    ['a:\n- {b: 1}\n', { a: [{ b: 1 }] }],
    ['a:\n- [{b: 1}]\n', { a: [[{ b: 1 }]] }],
    ['a:\n- -x\n', { a: ['-x'] }],
    ['"a b": 1\n', { 'a b': 1 }],
    ['"a\\u0041": 1\n', { aA: 1 }],
    ['"": 1\n', { '': 1 }],
    ["'': 1\n", { '': 1 }],
    ["'''': 1\n", { "'": 1 }],
    ['...x: 1\n', { '...x': 1 }],
    ['\na: 1\n', { a: 1 }],
    ['a- b:\n  c:', { 'a- b': { c: null } }],
    ['  {a: 1}\n', { a: 1 }],
    ["a:\n- 'b: c'\n", { a: ['b: c'] }],
    ['a: "x\n  y"', { a: 'x y' }],
    [`a: ${'x'.repeat(1000)}\nb: 1\n`, { a: 'x'.repeat(1000), b: 1 }],
    ["'a''b': 1\n", { "a'b": 1 }],
    ['"a":\n  b: 1\n', { a: { b: 1 } }],
    ['"a":', { a: null }],
    ['a b: 1\n', { 'a b': 1 }],
    ['a:b: 1\n', { 'a:b': 1 }],
    ['a#b: 1\n', { 'a#b': 1 }],
    ['a-b: 1\n', { 'a-b': 1 }],
    ['a: b:c\n', { a: 'b:c' }],
    ['a: http://x/y?z#w\n', { a: 'http://x/y?z#w' }],
    ['a: x # c\n', { a: 'x' }],
    ['a: x  # c\nb: 1\n', { a: 'x', b: 1 }],
    ['a: x#y\n', { a: 'x#y' }],
    ['a: x y  \n', { a: 'x y' }],
    ['a: -x\n', { a: '-x' }],
    ['a: ?x\n', { a: '?x' }],
    ['a: :x\n', { a: ':x' }],
    ['a: x\n  y\n', { a: 'x y' }],
    ['a: x\n  y\n  z\n', { a: 'x y z' }],
    ['a: x\n\n  y\n', { a: 'x\ny' }],
    ['a: x  \n  y\n', { a: 'x y' }],
    ['a: x\n  - y\n', { a: 'x - y' }],
    ['a: x\n   \n', { a: 'x' }],
    ['a: x\n  ', { a: 'x' }],
    ['a: x\n\n\nb: 1\n', { a: 'x', b: 1 }],
    ['a: x\n\n', { a: 'x' }],
    ['a:\n  - x\n    y\n', { a: ['x y'] }],
    ['a:\n  - x\n   y\n', { a: ['x y'] }],
    ['a:\n  b: x\n   y\n', { a: { b: 'x y' } }],
    ['a: [1] # c\n', { a: [1] }],
    [`${'k'.repeat(1000)}: 1\n`, { ['k'.repeat(1000)]: 1 }],
    [`"${'k'.repeat(998)}": 1\n`, { ['k'.repeat(998)]: 1 }],
  ];
  const declined: Declined[] = [
    ['', 'an empty document (yaml: null, not a mapping)'],
    ['# only a comment\n', 'no content'],
    ['# a: b\n', 'a comment that looks like a key (yaml: null)'],
    ['---\n# a: b\n', 'a marker and a comment that looks like a key (yaml: null)'],
    ['\n\n   \n', 'no content'],
    ['---\n', 'a marker and no content'],
    ['---', 'a marker and no content'],
    ['--- a: 1\n', 'content on the marker line (yaml: error)'],
    ['  a: 1\nb: 2\n', 'an indented first key (yaml: error)'],
    ['  a: 1\n', 'an indented first key: left to yaml'],
    ['- a\n', 'a top-level sequence: not a dashboard'],
    ['-\n', 'a top-level sequence of one null'],
    ['x\n', 'a top-level scalar: not a dashboard'],
    ['[1]\n', 'a top-level flow sequence: not a dashboard'],
    ['... a: 1\n', 'a document end marker before content (yaml: error)'],
    ['...\na: 1\n', 'a document end marker before content'],
    ['%YAML 1.2\n---\na: 1\n', 'a directive'],
    ['a: 1\n---\nb: 2\n', 'a second document'],
    ['a: 1\n...\n', 'a document end marker'],
    ['{a: 1}\nb: 2\n', 'content after a flow mapping (yaml: error)'],
    ['a: 1\na: 2\n', 'a duplicate key (yaml: error)'],
    ['a:\n  b: 1\n  b: 2\n', 'a duplicate nested key (yaml: error)'],
    ['a: 1\n  b: 2\n', 'a key deeper than the first (yaml: error)'],
    ['a:\n  b: [1]\n    c: 2\n', 'a key deeper than its siblings (yaml: error)'],
    ['a: 1\n- b\n', 'a sequence entry among keys (yaml: error)'],
    ['a:\n  - [x]\n    - y\n', 'a sequence entry deeper than its siblings (yaml: error)'],
    ['a:\n  - x\n  b: 1\n', 'a key among sequence entries (yaml: error)'],
    ['a: &x 1\n', 'an anchor'],
    ['a: *x\n', 'an alias'],
    ['a: !t 1\n', 'a tag'],
    ['a: %x\n', 'a reserved directive indicator (yaml: error)'],
    ['a: @x\n', 'a reserved indicator (yaml: error)'],
    ['a: `x\n', 'a reserved indicator (yaml: error)'],
    ['a: ,x\n', 'a flow indicator in block context'],
    ['a: ]\n', 'a flow indicator in block context (yaml: error)'],
    ['a: }\n', 'a flow indicator in block context (yaml: error)'],
    ['a: - x\n', 'a sequence as a compact value (yaml: error)'],
    ['a: -\n', 'a sequence entry as a value (yaml: error)'],
    ['a: -', 'a sequence entry as a value, at the end'],
    ['a: ? x\n', 'an explicit key as a value (yaml: error)'],
    ['a: : x\n', 'a value indicator as a value (yaml: error)'],
    ['a: b: c\n', 'a mapping as a compact value (yaml: error)'],
    ['a: x\n  y: z\n', 'a key inside a plain continuation (yaml: error)'],
    ['a: x\n  # c\n', 'a comment line inside a plain scalar: left to yaml'],
    ['a: x # c\n  y\n', 'a line deeper than its key after a comment (yaml: error)'],
    ['a:\n  b:\n- x\n', 'a sequence less indented than the key it would belong to (yaml: error)'],
    ['a:\n  b:\n    - x\nc:  - y\n', 'a sequence as a compact value after a nested sequence (yaml: error)'],
    ['"a"x 1\n', 'text and no colon after a quoted key (yaml: error)'],
    ['"a"  1\n', 'no colon after a quoted key (yaml: error)'],
    ["'a: 1\n", 'a key whose single quote is never closed (yaml: error)'],
    ['"a: 1\n', 'a key whose double quote is never closed (yaml: error)'],
    ['a: x\n  y # c\n', 'a comment after a plain continuation: left to yaml'],
    ['"a\nb": 1\n', 'a multi-line quoted key (yaml: error)'],
    ['"a" : 1\n', 'a space before the colon of a quoted key: left to yaml'],
    ['"a"x: 1\n', 'text after a quoted key (yaml: error)'],
    ['"a":1\n', 'no space after the colon of a quoted key in block context (yaml: error)'],
    ['a : 1\n', 'a space before the colon: left to yaml'],
    ['-a: 1\n', 'a key starting with an indicator: left to yaml'],
    ['?a: 1\n', 'a key starting with an indicator'],
    [':a: 1\n', 'a key starting with an indicator'],
    [',a: 1\n', 'a key starting with an indicator'],
    ['[a: 1\n', 'a key starting with an indicator'],
    [']a: 1\n', 'a key starting with an indicator'],
    ['{a: 1\n', 'an unclosed flow mapping (yaml: error)'],
    ['}a: 1\n', 'a key starting with an indicator'],
    ['&a: 1\n', 'a key starting with an indicator'],
    ['*a: 1\n', 'a key starting with an indicator'],
    ['!a: 1\n', 'a key starting with an indicator'],
    ['|a: 1\n', 'a key starting with an indicator'],
    ['>a: 1\n', 'a key starting with an indicator'],
    ['%a: 1\n', 'a key starting with an indicator'],
    ['@a: 1\n', 'a key starting with an indicator'],
    ['`a: 1\n', 'a key starting with an indicator'],
    ['a\n', 'no colon (yaml: error)'],
    ['a:x\n', 'no space after the colon: a scalar, not a key (yaml: error)'],
    ['a #b: 1\n', 'the colon inside a comment (yaml: error)'],
    ['__proto__: 1\n', 'a key JavaScript objects treat specially'],
    ['"__proto__": 1\n', 'a key JavaScript objects treat specially'],
    ['<<: {a: 1}\n', 'a merge key'],
    [`${'k'.repeat(1001)}: 1\n`, 'an implicit key over 1000 characters'],
    [`"${'k'.repeat(999)}": 1\n`, 'a quoted implicit key over 1000 characters'],
    ['a: [1]  x\n', 'text after a flow collection (yaml: error)'],
    ['a: [1]#c\n', 'a comment without a space before it (yaml: error)'],
    ['a:\n  -\n  - x\n  - - y\n    z: 1\n', 'a key after a nested compact sequence (yaml: error)'],
  ];
  it.each(accepted)('accepts %j', (source, expected) => expectAccepted(source, expected));
  it.each(declined.map(([s, why]) => [name(s), why, s] as const))('declines %s (%s)', (_n, _why, source) =>
    expectDeclined(source),
  );
});

describe('fast YAML path: flow collections', () => {
  const accepted: Accepted[] = [
    ['{}\n', {}],
    ['{a: 1}\n', { a: 1 }],
    ['{a: 1}', { a: 1 }],
    ['{a: 1,\nb: 2}\n', { a: 1, b: 2 }],
    ['{a: 1} # c\n', { a: 1 }],
    ['a: []\n', { a: [] }],
    ['a: {}\n', { a: {} }],
    ['a: [ ]\n', { a: [] }],
    ['a: { }\n', { a: {} }],
    ['a: [1, "x", \'y\', [2], {b: c}]\n', { a: [1, 'x', 'y', [2], { b: 'c' }] }],
    ['a: {b: 1, c: [2]}\n', { a: { b: 1, c: [2] } }],
    ['a: {c: 1, b: 2}\n', { a: { c: 1, b: 2 } }],
    ['a: [1 2]\n', { a: ['1 2'] }],
    ['a: [a b  ]\n', { a: ['a b'] }],
    ['a: [x:y]\n', { a: ['x:y'] }],
    ['a: [x#y]\n', { a: ['x#y'] }],
    ['a: {"b": 1}\n', { a: { b: 1 } }],
    ['a: {"b":1}\n', { a: { b: 1 } }],
    ["a: {'b':1}\n", { a: { b: 1 } }],
    ['a: {"b" : 1}\n', { a: { b: 1 } }],
    ['a: {"b":\n    1}\n', { a: { b: 1 } }],
    ['a: {b:\n    1}\n', { a: { b: 1 } }],
    ['a: {b: x:y}\n', { a: { b: 'x:y' } }],
    ['a: [1,\n  2]\n', { a: [1, 2] }],
    ['a: [1,\n\n  2]\n', { a: [1, 2] }],
    ['a: [\n  1\n  ]\n', { a: [1] }],
    ['a: [1,   2]\n', { a: [1, 2] }],
    ['a: [x,y]\n', { a: ['x', 'y'] }],
    ['a: [ 1 ]\n', { a: [1] }],
    ['a: { b: 1 }\n', { a: { b: 1 } }],
    ['{a: [1,\n ...]}\n', { a: [1, '...'] }],
    ['a:\n  b: [1,\n    2]\n', { a: { b: [1, 2] } }],
    ['a: ["x\\"y", \'it\'\'s\']\n', { a: ['x"y', "it's"] }],
    ['a: [-5, -x, -.5, -0, -9, -A, -Z, -a, -z, -.]\n', { a: [-5, '-x', -0.5, -0, -9, '-A', '-Z', '-a', '-z', '-.'] }],
    ['a: {-x: 1}\n', { a: { '-x': 1 } }],
    ['a: [true, null, ~, 0x1F]\n', { a: [true, null, null, 31] }],
    [`a: {${'k'.repeat(999)}: 1}\n`, { a: { ['k'.repeat(999)]: 1 } }],
    [`a: {"${'k'.repeat(997)}": 1}\n`, { a: { ['k'.repeat(997)]: 1 } }],
  ];
  const declined: Declined[] = [
    ['a: [1, ]\n', 'a trailing comma: left to yaml'],
    ['a: [1,]\n', 'a trailing comma: left to yaml'],
    ['a: {b: 1, }\n', 'a trailing comma: left to yaml'],
    ['a: [,]\n', 'an empty entry (yaml: error)'],
    ['a: [1,,2]\n', 'an empty entry (yaml: error)'],
    ['a: ["x" y]\n', 'two scalars without a comma (yaml: error)'],
    ['a: [1\n', 'an unclosed sequence (yaml: error)'],
    ['a: [1,', 'an unclosed sequence at the end (yaml: error)'],
    ['a: [1, 2', 'an unclosed sequence at the end (yaml: error)'],
    ['a: {b: 1\n', 'an unclosed mapping (yaml: error)'],
    ['a: {b: 1, b: 2}\n', 'a duplicate key (yaml: error)'],
    ['a: [x:]\n', 'an implicit pair with an empty value in a sequence (yaml: [{x: null}])'],
    ['a: [x[y]]\n', 'a bracket inside a plain scalar (yaml: error)'],
    ['a: [x[y]\n', 'a bracket inside a plain scalar, one closing bracket (yaml: error)'],
    ['a: [x{y]\n', 'a brace inside a plain scalar (yaml: error)'],
    ['a: {"b"x 1}\n', 'text after a quoted flow key (yaml: error)'],
    ['a: {b, c}\n', 'keys without values (yaml: {b: null, c: null})'],
    ['a: {b:[1]}\n', 'a plain key glued to its value: adjacency is left to yaml after quoted keys only'],
    ['a: [-~]\n', 'a dash before a non-word character: left to yaml'],
    ['a: [x{y}]\n', 'a brace inside a plain scalar (yaml: error)'],
    ['a: [x}y]\n', 'a closing brace inside a plain scalar (yaml: error)'],
    ['a: [x:, y]\n', 'an implicit pair before a comma (yaml: [{x: null}, y])'],
    ['a: [x:{y: 1}]\n', 'an implicit pair with a mapping glued to the colon (yaml: [{x: {y: 1}}])'],
    ['a: [x:[1]]\n', 'an implicit pair with a sequence glued to the colon (yaml: [{x: [1]}])'],
    ['a: {b: x:}\n', 'a colon before the closing brace (yaml: error)'],
    ['a: {b:}\n', 'a key glued to the closing brace: left to yaml'],
    ['a: [b: 1]\n', 'an implicit pair in a sequence: left to yaml'],
    ['a: {b}\n', 'a key without a value: left to yaml'],
    ['a: {b: }\n', 'a missing value: left to yaml'],
    ['a: {b:1}\n', 'a plain key glued to its value (yaml: key `b:1`)'],
    ['a: {b:, c: 1}\n', 'a colon followed by a comma: left to yaml'],
    ['a: {"b" 1}\n', 'a quoted key without a colon (yaml: error)'],
    ['a: {[b]: 1}\n', 'a collection as a key'],
    ['a: {__proto__: 1}\n', 'a key JavaScript objects treat specially'],
    ['a: {"__proto__": 1}\n', 'a key JavaScript objects treat specially'],
    ['a: {<<: {b: 1}}\n', 'a merge key'],
    [`a: {${'k'.repeat(1000)}: 1}\n`, 'a flow key over 1000 characters'],
    [`a: {"${'k'.repeat(998)}": 1}\n`, 'a quoted flow key over 1000 characters'],
    ['a: ["x\n  y"]\n', 'a multi-line quoted scalar in a flow collection'],
    ['a: {"x\n  y": 1}\n', 'a multi-line quoted key in a flow collection'],
    ['a: [x\n  y]\n', 'a multi-line plain scalar in a flow collection'],
    ['a: [x #c\n  ]\n', 'a comment after a plain scalar'],
    ['a: ["x" #c\n  ]\n', 'a comment after a quoted scalar'],
    ['a: [ #c\n  1]\n', 'a comment after the opening bracket'],
    ['a: [1,\n2]\n', 'a continuation line not indented (yaml: error)'],
    ['a:\n  b: [1,\n  2]\n', 'a continuation line at the key’s indentation (yaml: error)'],
    ['{a: [1,\n---\n]}\n', 'a document marker inside a flow collection (yaml: error)'],
    ['{a: [1,\n...\n]}\n', 'a document end marker inside a flow collection (yaml: error)'],
    ['a: [- x]\n', 'a block sequence entry in a flow collection (yaml: error)'],
    ['a: [-]\n', 'a lone dash'],
    ['a: [-, 1]\n', 'a lone dash'],
    ['a: [-/]\n', 'a dash before a non-word character: left to yaml'],
    ['a: [-:]\n', 'a dash before a colon: left to yaml'],
    ['a: [-@]\n', 'a dash before a reserved indicator: left to yaml'],
    ['a: [-[]\n', 'a dash before a bracket: left to yaml'],
    ['a: [-`]\n', 'a dash before a reserved indicator: left to yaml'],
    ['a: [-{]\n', 'a dash before a brace: left to yaml'],
    ['a: [?x]\n', 'an explicit-key indicator'],
    ['a: [:x]\n', 'a value indicator'],
    ['a: [&x 1]\n', 'an anchor'],
    ['a: [*x]\n', 'an alias'],
    ['a: [!t 1]\n', 'a tag'],
    ['a: [|]\n', 'a block scalar indicator'],
    ['a: [>]\n', 'a block scalar indicator'],
    ['a: [%]\n', 'a directive indicator'],
    ['a: [@x]\n', 'a reserved indicator'],
    ['a: [`x]\n', 'a reserved indicator'],
    ['a: [#]\n', 'a comment where a value should be'],
    ['a: {&x b: 1}\n', 'an anchor on a key'],
    ['a: {?x: 1}\n', 'an explicit-key indicator on a key'],
  ];
  it.each(accepted.map(([s, v]) => [name(s), s, v] as const))('accepts %s', (_n, source, expected) =>
    expectAccepted(source, expected),
  );
  it.each(declined.map(([s, why]) => [name(s), why, s] as const))('declines %s (%s)', (_n, _why, source) =>
    expectDeclined(source),
  );
});
