import fc from 'fast-check';
import { parseAllDocuments, type Document } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseYamlDocuments } from '../../../src/desired/yaml-hazards.js';

/** Each document's errors as `yaml` gives them: code, place and message, in order. */
const errorsOf = (docs: readonly Document.Parsed[]): unknown[] => docs.map((doc) => doc.errors.map((e) => [e.code, e.pos, e.message]));

const checkedByYaml = (source: string): unknown[] => errorsOf(parseAllDocuments(source, { prettyErrors: false }));
const checkedHere = (source: string): unknown[] => errorsOf(parseYamlDocuments(source, { prettyErrors: false }));

/** Keys that are equal or not as yaml compares them (`1` and `0x1` are one, `"1"` another; NaN none), some with props. */
const KEYS = ['a', 'b', '1', '0x1', '"1"', "'a'", '~', 'null', '.nan', 'true', 'True', '&x a', '!!str b', '<<'];
const SCALARS = ['1', 'x', '"s"', '~', '*x'];

type Tree = string | { flow: boolean; pairs: [string, Tree][] };

/** Well-formed YAML: maps, block and flow, nested, whose only errors can be repeated keys. */
const trees: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...SCALARS),
    fc.record({ flow: fc.boolean(), pairs: fc.array(fc.tuple(fc.constantFrom(...KEYS), tie('tree')), { minLength: 1, maxLength: 6 }) }),
  ),
})).tree;

function render(tree: Tree, indent: string, inFlow: boolean): string {
  if (typeof tree === 'string') return tree;
  if (tree.flow || inFlow) return `{ ${tree.pairs.map(([key, value]) => `${key}: ${render(value, '', true)}`).join(', ')} }`;
  const inner = `${indent}  `;
  return tree.pairs.map(([key, value]) => `\n${inner}${key}: ${render(value, inner, false)}`).join('');
}

const documentOf = (tree: Tree): string => (typeof tree === 'string' || tree.flow ? render(tree, '', false) : render(tree, '', false).replace(/^\n {2}/, '').replace(/\n {2}/g, '\n'));

/** Pieces of YAML that make maps, and broken text. */
const PIECES = [...KEYS, ':', ': ', ', ', '{', '}', '[', ']', '\n', '  ', '- ', '? ', '*x', '#c', '---\n'];

describe('parseYamlDocument(s): the duplicate keys yaml reports, found in linear time', () => {
  it('reports exactly the errors yaml does when it checks keys itself, for well-formed maps of equal and unequal keys', () => {
    let duplicates = 0;
    fc.assert(
      fc.property(trees, (tree) => {
        const source = `${documentOf(tree)}\n`;
        // By place: yaml checks a flow map's key after its value, so it reports a repeat inside that value first.
        const expected = checkedByYaml(source).map((errors) => [...(errors as [string, number[]][])].sort((a, b) => (a[1][0] ?? 0) - (b[1][0] ?? 0)));
        expect(checkedHere(source), source).toEqual(expected);
        duplicates += expected.flat().length;
      }),
      { numRuns: 3000 },
    );
    // The generator does make repeated keys, often.
    expect(duplicates).toBeGreaterThan(500);
  });

  it('in broken text, finds as many repeated keys as yaml, and keeps the first of its other errors, saying how many followed', () => {
    const isDuplicate = (error: unknown): boolean => (error as string[])[0] === 'DUPLICATE_KEY';
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }), (pieces) => {
        const source = pieces.join('');
        const [here, byYaml] = [checkedHere(source), checkedByYaml(source)];
        expect(here.map((errors) => (errors as unknown[]).filter(isDuplicate).length), JSON.stringify(source)).toEqual(byYaml.map((errors) => (errors as unknown[]).filter(isDuplicate).length));
        here.forEach((errors, i) => {
          const others = (byYaml[i] as [string, number[], string][]).filter((e) => !isDuplicate(e));
          const kept = (errors as [string, number[], string][]).filter((e) => !isDuplicate(e));
          if (others.length === 0) return expect(kept).toEqual([]);
          const first = others.reduce((a, b) => ((b[1][0] ?? 0) < (a[1][0] ?? 0) ? b : a));
          const more = others.length - 1;
          // A key indented past the one above it is said at its own line, later in the text, instead (yaml-hazards.ts).
          const [kind, at, message] = kept[0] ?? ['', [], ''];
          if (kept.length === 1 && message.startsWith('this key is indented')) return expect([kind, (at[0] ?? 0) > (first[1][0] ?? 0)]).toEqual([first[0], true]);
          expect(kept, JSON.stringify(source)).toEqual([[first[0], first[1], more === 0 ? first[2] : `${first[2]} (and ${more} more YAML error${more === 1 ? '' : 's'} after it, most likely from this one)`]]);
        });
      }),
      { numRuns: 3000 },
    );
  });

  it('reports each repeated key where yaml does, block and flow maps, nested and in later documents', () => {
    const cases: [string, number][] = [
      ['a: 1\na: 2\n', 1],
      ['a: 1\nb: {a: 1, a: 2}\na: 3\n', 2],
      ['1: x\n0x1: y\n"1": z\n', 1],
      ['.nan: 1\n.nan: 2\n', 0],
      ['~: 1\nnull: 2\n: 3\n', 2],
      ['&x a: 1\n!!str a: 2\n? a\n: 3\n', 2],
      ['? [a]\n: 1\n? [a]\n: 2\n', 0],
      ['a: 1\n---\na: 1\na: 2\n', 1],
      ['- {a: 1, a: 2}\n- a: 1\n  a: 2\n', 2],
      // Empty keys: yaml places them at their `:`, past the blanks and line breaks their node starts before.
      ['- : 1\n  : 2\n', 1],
      ['{ : 1,   : 2 }\n', 1],
      ['a: 1\n?\n: 2\n?\n: 3\n', 1],
    ];
    for (const [source, count] of cases) {
      expect(checkedHere(source), source).toEqual(checkedByYaml(source));
      expect(checkedHere(source).flat().filter((e) => (e as string[])[0] === 'DUPLICATE_KEY'), source).toHaveLength(count);
    }
  });

  it('keeps the first syntax error and every repeated key, by place: one stray bracket is one problem, not ten', () => {
    expect(checkedHere('a: 1\nb: [\na: 2\nc: "x\n')).toEqual([
      [
        ['BAD_INDENT', [10, 11], 'Flow sequence in block collection must be sufficiently indented and end with a ] (and 1 more YAML error after it, most likely from this one)'],
        ['DUPLICATE_KEY', [10, 11], 'Map keys must be unique'],
      ],
    ]);
    const stray = 'tiles: [\n  - name: a\n    x: 1\n  - name: b\n    y: 2\n';
    expect(checkedByYaml(stray)[0]).not.toHaveLength(1);
    expect(checkedHere(stray)[0]).toHaveLength(1);
  });
});
