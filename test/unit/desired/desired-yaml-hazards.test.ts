import { describe, expect, it, vi } from 'vitest';
import { parseDocument, YAMLParseError } from 'yaml';
import { locateProblems } from '../../../src/desired/locate-problems.js';
import { aliasProblems, MAX_ALIASES, documentValue, flowNestingOffset, inexactIntegers, MAX_FLOW_DEPTH, nestingMessage, TOO_DEEP_MESSAGE, tooDeepPath } from '../../../src/desired/yaml-hazards.js';

/*
 * Depths are counted by hand: the value passed in is depth 1, each object or array inside it one more. A target
 * accepts containers down to depth 64 (schema/limits.ts MAX_JSON_DEPTH); a container at depth 65 is refused.
 */

/** `levels` arrays, one inside the other, the innermost holding `inner`: the outermost is depth 1. */
const arrays = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : [arrays(levels - 1, inner)]);
/** The same with objects of one member `k`. */
const objects = (levels: number, inner: unknown): unknown => (levels === 0 ? inner : { k: objects(levels - 1, inner) });
const zeros = (n: number): number[] => Array.from({ length: n }, () => 0);

describe('tooDeepPath', () => {
  it('accepts 64 levels of arrays or objects, whatever scalar the innermost one holds', () => {
    for (const inner of ['text', 7, true, null]) {
      expect(tooDeepPath(arrays(64, inner)), JSON.stringify(inner)).toBeUndefined();
      expect(tooDeepPath(objects(64, inner)), JSON.stringify(inner)).toBeUndefined();
    }
  });

  it('points at the first container at depth 65: 64 steps down from the value', () => {
    expect(tooDeepPath(arrays(65, 'x'))).toStrictEqual(zeros(64));
    expect(tooDeepPath(arrays(64, {}))).toStrictEqual(zeros(64));
    expect(tooDeepPath(arrays(64, [[]]))).toStrictEqual(zeros(64));
    expect(tooDeepPath(objects(65, 1))).toStrictEqual(Array.from({ length: 64 }, () => 'k'));
    expect(tooDeepPath(objects(64, { deeper: [] }))).toStrictEqual(Array.from({ length: 64 }, () => 'k'));
  });

  it('skips shallow siblings (scalars, null, small containers) and names the deep one by index or key', () => {
    // The array is depth 1; arrays(64, 0) inside it reaches depth 65.
    expect(tooDeepPath([1, 'a', null, {}, [], arrays(64, 0)])).toStrictEqual([5, ...zeros(63)]);
    expect(tooDeepPath({ a: 1, b: null, c: { x: [] }, d: arrays(64, 0), e: arrays(70, 0) })).toStrictEqual(['d', ...zeros(63)]);
    expect(tooDeepPath({ a: [1, 2, arrays(63, 0)] })).toStrictEqual(['a', 2, ...zeros(62)]);
  });

  it('leaves scalars alone', () => {
    for (const value of ['x', 0, false, null, undefined]) expect(tooDeepPath(value)).toBeUndefined();
  });

  it('has one message for every too-deep value, made when the module loads', async () => {
    expect(TOO_DEEP_MESSAGE).toBe('nested deeper than a target accepts (64 levels of objects and arrays): flatten it');
    // Loaded afresh inside the test, so that a mutation run counts this test as one that sees the constant made.
    vi.resetModules();
    const loaded = await import('../../../src/desired/yaml-hazards.js');
    expect(loaded.TOO_DEEP_MESSAGE).toBe('nested deeper than a target accepts (64 levels of objects and arrays): flatten it');
  });
});

describe('flowNestingOffset', () => {
  it('finds the bracket past the limit, whether the text holds just enough openers or many more', () => {
    const nested = (levels: number): string => `x: ${'['.repeat(levels)}${']'.repeat(levels)}\n`;
    expect(flowNestingOffset(nested(MAX_FLOW_DEPTH))).toBeUndefined();
    expect(flowNestingOffset(nested(MAX_FLOW_DEPTH + 1))).toBe(3 + MAX_FLOW_DEPTH);
    expect(flowNestingOffset(`a: {}\n${nested(MAX_FLOW_DEPTH + 1)}`)).toBe(9 + MAX_FLOW_DEPTH);
  });

  it('answers nothing for many shallow brackets, or for few', () => {
    expect(flowNestingOffset(`x: [${'[], {}, '.repeat(MAX_FLOW_DEPTH)}]\n`)).toBeUndefined();
    expect(flowNestingOffset('dashboardMetadata: { name: d, owner: o }\ntiles: [{ a: [1] }]\n')).toBeUndefined();
  });
});

describe('aliasProblems', () => {
  it('accepts an alias that names an earlier anchor outside it', () => {
    expect(aliasProblems(parseDocument('a: &x {b: 1}\nc: *x\nd: [*x, *x]\n'))).toStrictEqual([]);
  });

  it('reports an alias with no anchor and an alias inside its anchor, at the alias', () => {
    expect(aliasProblems(parseDocument('a: *x\nb: &y [1, *y]\n'))).toStrictEqual([
      { offset: 3, message: 'alias *x has no anchor &x before it: define the anchor first, or write the value out' },
      { offset: 16, message: 'alias *y is inside the node its anchor &y names, so the value would contain itself: write the value out' },
    ]);
  });

  it('resolves an alias to the last anchor of its name before it, as yaml does: a later one of that name is another value', () => {
    const doc = parseDocument('a: &x 1\nb: *x\nc: &x [2, *x]\nd: *x\n');
    expect(aliasProblems(doc)).toStrictEqual([{ offset: 24, message: 'alias *x is inside the node its anchor &x names, so the value would contain itself: write the value out' }]);
    expect(aliasProblems(parseDocument('a: &x 1\nb: *x\nc: &x 2\nd: [*x]\n'))).toStrictEqual([]);
    expect(parseDocument('a: &x 1\nb: *x\nc: &x 2\nd: [*x]\n').toJS()).toStrictEqual({ a: 1, b: 1, c: 2, d: [2] });
  });

  it(`takes ${MAX_ALIASES} aliases, and reports the one past them once, at its place (8,000 took 63 s to check one by one)`, () => {
    const source = (count: number): string => Array.from({ length: count }, (_, i) => `a${i}: &x${i} ${i}\nb${i}: *x${i}`).join('\n');
    // Keys unchecked: yaml's own unique-key check is quadratic (16,000 keys took it 9 s), and aliases are the point.
    expect(aliasProblems(parseDocument(source(MAX_ALIASES), { uniqueKeys: false }))).toStrictEqual([]);
    const many = source(8000);
    expect(aliasProblems(parseDocument(many, { uniqueKeys: false }))).toStrictEqual([
      { offset: many.indexOf(`*x${MAX_ALIASES}`), message: `more than ${MAX_ALIASES} aliases in one file: write the values out, or use fewer aliases` },
    ]);
  });
});

/** Twelve levels of nine aliases each: 9^11 values if expanded (the e2e test's bomb); the first alias is `*a0` on line 3. */
function aliasBomb(): string {
  const levels = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 12; i++) levels.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(', ')}]`);
  return `x:\n  ${levels.join('\n  ')}\ndashboardMetadata:\n  name: Bomb\n  owner: me\ntiles: []\n`;
}

const BOMB_MESSAGE =
  'aliases expand to too many values (Excessive alias count indicates a resource exhaustion attack): write the values out, or use fewer aliases of aliases';

describe('documentValue', () => {
  it('returns the value of an ordinary document', () => {
    expect(documentValue(parseDocument('a: &x [1]\nb: *x\n'))).toStrictEqual({ ok: true, value: { a: [1], b: [1] } });
  });

  it('reports an alias bomb at its first alias, with yaml’s reason', () => {
    const source = aliasBomb();
    // `  a1: &a1 [` is 11 characters: the first alias starts line 3 at column 12.
    expect(documentValue(parseDocument(source))).toStrictEqual({ ok: false, problems: [{ offset: source.indexOf('*a0'), message: BOMB_MESSAGE }] });
    expect(locateProblems(source)).toStrictEqual({ ok: false, problems: [{ line: 3, col: 12, path: '', message: BOMB_MESSAGE }] });
  });

  it('reports a ReferenceError without any alias at the start of the content', () => {
    const doc = parseDocument('# comment\na: 1\n');
    doc.toJS = () => {
      throw new ReferenceError('too many');
    };
    expect(documentValue(doc)).toStrictEqual({
      ok: false,
      problems: [{ offset: 10, message: 'aliases expand to too many values (too many): write the values out, or use fewer aliases of aliases' }],
    });
  });

  it('reports the aliases toJS() cannot turn into a value, before it is called', () => {
    const doc = parseDocument('a: *x\nb: &y [1, *y]\n');
    doc.toJS = () => {
      throw new TypeError('toJS must not be reached');
    };
    expect(documentValue(doc)).toStrictEqual({ ok: false, problems: aliasProblems(doc) });
    expect(aliasProblems(doc)).toHaveLength(2);
  });

  it('lets any other error through', () => {
    const doc = parseDocument('a: 1\n');
    doc.toJS = () => {
      throw new TypeError('not about aliases');
    };
    expect(() => documentValue(doc)).toThrow(new TypeError('not about aliases'));
  });
});

const NESTING_MESSAGE = 'collections nested too deeply to read (a dashboard nests about 10 levels; a target accepts at most 64)';

describe('nestingMessage', () => {
  it('replaces yaml’s call-stack message, and only that one', () => {
    expect(nestingMessage(new YAMLParseError([5, 6], 'RESOURCE_EXHAUSTION', 'Maximum call stack size exceeded'))).toBe(NESTING_MESSAGE);
    expect(nestingMessage(new YAMLParseError([5, 6], 'RESOURCE_EXHAUSTION', 'Excessive alias count'))).toBeUndefined();
    expect(nestingMessage(new YAMLParseError([5, 6], 'BAD_INDENT', 'call stack'))).toBeUndefined();
    expect(nestingMessage(new YAMLParseError([5, 6], 'MISSING_CHAR', 'Missing closing "quote'))).toBeUndefined();
  });

  it('is what a flow collection nested 10,000 deep reports, on the line it is written', () => {
    const source = `dashboardMetadata:\n  name: Deep\n  owner: me\n  x: ${'['.repeat(10_000)}${']'.repeat(10_000)}\ntiles: []\n`;
    const check = locateProblems(source);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    // Where yaml gives up depends on the stack it has (a mutation run's instrumented code has less to spare, and
    // may then see a second error further on): the first problem is the nesting message on line 4.
    expect(check.problems[0]).toMatchObject({ line: 4, path: '', message: NESTING_MESSAGE });
  });
});

describe('too deep for a target, located', () => {
  it('points at the first container at depth 65 with its path, and still warns about the unknown key', () => {
    // `x` (column 6) is depth 3 (dashboard 1, dashboardMetadata 2): the 63rd `[`, column 68, is depth 65.
    const source = `dashboardMetadata:\n  name: Deep\n  owner: me\n  x: ${'['.repeat(70)}${']'.repeat(70)}\ntiles: []\n`;
    expect(locateProblems(source)).toStrictEqual({
      ok: false,
      problems: [{ line: 4, col: 68, path: `dashboardMetadata.x${'[0]'.repeat(62)}`, message: TOO_DEEP_MESSAGE }],
      warnings: [{ line: 4, col: 3, path: 'dashboardMetadata.x', message: expect.stringMatching(/^unknown key/) }],
    });
  });
});

describe('a key indented more than the key above it', () => {
  const problems = (source: string): string[] => {
    const check = locateProblems(source);
    return check.ok ? [] : check.problems.map((p) => `${p.line}:${p.col} ${p.message}`);
  };
  const said = (spaces: number): string => `this key is indented ${spaces} space${spaces === 1 ? '' : 's'} more than the key on the line above, so YAML reads it as part of that key's value: line it up with that key`;

  it('is said at the line that is wrong, with how far: yaml said "Nested mappings are not allowed in compact mappings" at the line above', () => {
    const tile = (bounds: string): string => `dashboardMetadata:\n  name: A\n  owner: ops\ntiles:\n  - name: N\n    tileType: MARKDOWN\n${bounds}bounds: { top: 0, left: 0, width: 304, height: 152 }\n    markdown: x\n`;
    expect(problems(tile('     '))).toEqual([`7:6 ${said(1)}`]);
    expect(problems(tile('       '))).toEqual([`7:8 ${said(3)}`]);
    // Under a list item's first key, which starts after its `- `.
    expect(problems(`dashboardMetadata:\n  name: A\n  owner: ops\ntiles:\n  - name: N\n     tileType: MARKDOWN\n`)).toEqual([`6:6 ${said(1)}`]);
  });

  it("leaves yaml's words for anything else: a continued text, a nested mapping done right, another mistake", () => {
    expect(problems('dashboardMetadata:\n  name: A\n  owner: ops\ntiles: []\n')).toEqual([]);
    expect(problems('dashboardMetadata:\n  name: a long\n     name\n  owner: ops\ntiles: []\n')).toEqual([]);
    const other = problems('dashboardMetadata:\n  name: A\n   - x\ntiles: []\n');
    expect(other).toHaveLength(1);
    expect(other[0]).not.toContain('more than the key on the line above');
  });
});

describe('a key indented less than the key above it', () => {
  const problems = (source: string): string[] => {
    const check = locateProblems(source);
    return check.ok ? [] : check.problems.map((p) => `${p.line}:${p.col} ${p.message}`);
  };
  const said = (spaces: number): string => `this key is indented ${spaces} space${spaces === 1 ? '' : 's'} less than the key on the line above and lines up with no key before it, so YAML cannot place it: indent it as the keys it belongs with`;

  it('is said at the key, with how far: yaml said "All mapping items must start at the same column" at the line\'s start', () => {
    expect(problems('dashboardMetadata:\n  name: A\n owner: ops\ntiles: []\n')).toEqual([`3:2 ${said(1)}`]);
    // In a list item, under its first key (after `- `), past a comment and a blank line: yaml said "Sequence item without - indicator".
    const tile = 'dashboardMetadata:\n  name: A\n  owner: ops\ntiles:\n  - name: N\n    tileType: MARKDOWN\n    # the text\n\n   markdown: x\n';
    expect(problems(tile)).toEqual([`9:4 ${said(1)}`]);
  });

  it("leaves yaml's words for a line that is no key, or one at the margin", () => {
    const listItem = problems('dashboardMetadata:\n  name: A\n  owner: ops\ntiles:\n  - name: N\n   - x\n');
    expect(listItem.join()).not.toContain('less than the key on the line above');
    expect(problems('dashboardMetadata:\n  name: A\nowner: ops\ntiles: []\n').join()).not.toContain('less than');
  });
});

describe('inexactIntegers', () => {
  const offsets = (source: string): number[] => inexactIntegers(parseDocument(source)).map((p) => p.offset);

  it('finds each integer written with more digits than a double keeps, where it starts, and says what would be sent', () => {
    const source = 'a: 9007199254740993\nb: [1, -1702373595732123456]\nc: {d: 0x20000000000001}\ne: 0o400000000000000001\n';
    expect(offsets(source)).toEqual([3, 27, 56, 77]);
    const [first] = inexactIntegers(parseDocument('t: 1702373595732123456\n'));
    expect(first?.message).toBe(
      '1702373595732123456 has more digits than dashcd keeps in a number (it reads numbers as JavaScript does, integers exactly up to 9007199254740991): it would be sent as 1702373595732123400. Quote it if the field takes text',
    );
  });

  it('leaves alone integers sent as written, floats, quoted digits, text and every other scalar', () => {
    const source = 'a: 9007199254740991\nb: -9007199254740991\nb2: 123456789012345680000\nc: 1.5e300\nd: 12345678901234567890.5\ne: "1702373595732123456"\nf: \'1702373595732123456\'\ng: x1702373595732123456\nh: true\n';
    expect(offsets(source)).toEqual([]);
  });

  it('reads a %YAML 1.1 file\'s integers as that version writes them: underscores, 0b, 0-prefixed octal, base 60', () => {
    const source = '%YAML 1.1\n---\na: 1_702_373_595_732_123_456\nb: 0b11111111111111111111111111111111111111111111111111111111111\nc: 0400000000000000000001\nd: 190:20:30\ne: 1_000_000\nf: 0x20_0000_0000_0000\n';
    const found = inexactIntegers(parseDocument(source));
    expect(found.map((p) => source.slice(p.offset).split('\n')[0])).toEqual(['1_702_373_595_732_123_456', '0b11111111111111111111111111111111111111111111111111111111111', '0400000000000000000001']);
    expect(found[0]?.message).toContain('it would be sent as 1702373595732123400');
  });

  it('reports an integer too long for a double at all (read as Infinity), and leaves a float that overflows to yaml\'s reading', () => {
    const huge = '9'.repeat(100_000);
    const [found, ...more] = inexactIntegers(parseDocument(`a: ${huge}\nb: 1e400\nc: .inf\n`));
    expect(more).toEqual([]);
    expect(found?.offset).toBe(3);
    expect(found?.message).toContain('it would be sent as Infinity');
  });

  it('makes documentValue refuse the value, as every reader of a committed file takes it', () => {
    const read = documentValue(parseDocument('x: 1\nts: 1702373595732123456\n'));
    expect(read).toMatchObject({ ok: false, problems: [{ offset: 9 }] });
  });
});
