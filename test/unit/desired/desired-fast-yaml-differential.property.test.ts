import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastParseYaml } from '../../../src/desired/fast-yaml/fast-parse.js';
import { expectAgreement } from '../../helpers/yaml-agreement.js';

/**
 * Differential test of the fast YAML path against `yaml` on hand-built text full of what the fast path must leave
 * to `yaml`: indicator characters, anchors, aliases, tags and complex keys, in every position of block and flow
 * collections. The contract: whenever the fast path answers, `yaml` reads the same text without error and to the
 * same value. Seeds are fixed so the suite is deterministic; change a seed to explore other texts.
 */

/** Words that begin, end or contain an indicator, next to plain ones (which keep the fast path busy). */
const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('x', 'y z', 'name', '1', '-2', '0.5', 'true', 'null', '~', 'a.b', 'x-y', 'é') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '?x', '? x', '?', '-x', '- x', '-', ':x', ': x', ':', 'x:y', 'x:', '&x', '*x', '!x', '|x', '>x', '%x', '@x', '`x', '#x',
      'x #y', 'x#y', ',x', 'x,', '[x', 'x]', '{x', 'x}', 'x?', 'x-', '"x"', "'x'", '"x" y', "'x'y", '<<', '__proto__', '=',
    ),
  },
);

/** Node properties: nothing (mostly), anchors, tags (shorthand, secondary, verbatim, non-specific), both. */
const props = fc.constantFrom('', '', '', '', '&a ', '&b ', '!t ', '!!str ', '!!int ', '!!map ', '!!seq ', '!<tag:x> ', '! ', '&a !!str ', '!t &b ');
const alias = fc.constantFrom('*a', '*b', '*c', '*a ', '* a');

type Flow = string;
const flow: fc.Arbitrary<Flow> = fc.letrec<{ node: Flow; key: Flow; entry: Flow }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(props, word).map(([p, w]) => p + w),
    alias,
    fc.tuple(props, fc.array(fc.oneof(tie('node'), tie('entry')), { maxLength: 3 }), fc.constantFrom(', ', ',', ' , ')).map(([p, items, sep]) => `${p}[${items.join(sep)}]`),
    fc.tuple(props, fc.array(tie('entry'), { maxLength: 3 }), fc.constantFrom(', ', ',', ' , ')).map(([p, entries, sep]) => `${p}{${entries.join(sep)}}`),
  ),
  key: fc.oneof(fc.tuple(props, word).map(([p, w]) => p + w), alias, tie('node')),
  entry: fc.oneof(
    fc.tuple(tie('key'), tie('node')).map(([k, v]) => `${k}: ${v}`),
    fc.tuple(tie('key'), tie('node')).map(([k, v]) => `? ${k}: ${v}`),
    fc.tuple(tie('key'), tie('node')).map(([k, v]) => `${k}:${v}`),
    tie('key').map((k) => `? ${k}`),
    tie('key'),
    tie('node').map((v) => `: ${v}`),
  ),
})).node;

type Block = (indent: number) => string;
const pad = (n: number): string => ' '.repeat(n);
/** A block node written after `key:` or `- ` at `indent`: inline (same line) or nested (next lines). */
const block: fc.Arbitrary<Block> = fc.letrec<{ node: Block; key: string }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    flow.map((f) => () => ` ${f}`),
    fc.tuple(props, fc.constantFrom('|', '>', '|-', '>+'), word).map(([p, h, w]) => (ind: number) => ` ${p}${h}\n${pad(ind + 2)}${w}`),
    fc
      .tuple(props, fc.array(fc.tuple(tie('key'), tie('node'), fc.boolean()), { minLength: 1, maxLength: 3 }))
      .map(([p, entries]) => (ind: number) =>
        ` ${p}`.trimEnd() +
        entries
          .map(([k, v, explicit]) => `\n${pad(ind + 2)}${explicit ? `? ${k}\n${pad(ind + 2)}:${v(ind + 2)}` : `${k}:${v(ind + 2)}`}`)
          .join('')),
    fc
      .tuple(props, fc.array(fc.tuple(tie('node'), fc.boolean()), { minLength: 1, maxLength: 3 }))
      .map(([p, items]) => (ind: number) =>
        ` ${p}`.trimEnd() + items.map(([v, compact]) => `\n${pad(ind + 2)}-${compact ? v(ind + 4).replace(/^\n */, ' ') : v(ind + 2)}`).join('')),
  ),
  key: fc.oneof({ weight: 3, arbitrary: fc.tuple(props, word).map(([p, w]) => p + w) }, alias, flow),
})).node;

/** A whole document: a block mapping at the left margin (what dashboard files are), or a flow mapping. */
const documentText = fc.oneof(
  fc.array(fc.tuple(fc.oneof({ weight: 4, arbitrary: word }, fc.tuple(props, word).map(([p, w]) => p + w), flow), block), { minLength: 1, maxLength: 4 })
    .map((entries) => entries.map(([k, v]) => `${k}:${v(0)}`).join('\n') + '\n'),
  flow.filter((f) => f.startsWith('{')).map((f) => `${f}\n`),
);

describe('fast YAML path against yaml: indicators, anchors, aliases, tags and complex keys everywhere', () => {
  it('agrees with yaml on every text it accepts, and accepts a fair share of them', () => {
    let accepted = 0;
    fc.assert(
      fc.property(documentText, (source) => {
        if (expectAgreement(source)) accepted += 1;
      }),
      { seed: 1111, numRuns: 3000 },
    );
    // Not vacuous: plain texts still take the fast path, so a wrong answer would be seen.
    expect(accepted).toBeGreaterThan(150);
  });

  it.each([['{? a: 1}'], ['{? a}'], ['{a: 1, ? b: 2}'], ['{- a: 1}'], ['{: a}'], ['{&a k: v}'], ['{!t k: v}'], ['{*a : v}'], ['{[a]: v}'], ['{{a: b}: v}']])(
    'declines the flow mapping %j, whose key yaml reads differently from a plain key',
    (mapping) => {
      expect(fastParseYaml(`${mapping}\n`).ok).toBe(false);
      expect(fastParseYaml(`k: ${mapping}\n`).ok).toBe(false);
    },
  );
});
