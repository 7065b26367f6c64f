import fc from 'fast-check';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { toDashboardYaml } from '../../../src/desired/dashboard-yaml.js';
import { renderTemplates } from '../../../src/environments/render-templates.js';
import { escapeTemplates, unescapeTemplates } from '../../../src/pull/template-literals.js';

/** Strings dense in the pieces of templates and their literal forms. */
const text = fc.string({ unit: fc.constantFrom('$', '{', '}', ' ', 'x', '${{', '$${{', '}}', '\n'), maxLength: 10 });
const json: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 3 }), fc.dictionary(text, tie('value'), { maxKeys: 3 })),
})).value;

function rendered(value: unknown): { value: unknown; problems: unknown[] } {
  const result = renderTemplates(value, { env: { name: 'dev', group: null }, values: {}, dashboardId: () => ({ problem: 'none' }), maxInserted: Number.MAX_SAFE_INTEGER });
  return { value: result.value, problems: result.problems };
}

describe('template literals agree with the renderer', () => {
  it('an escaped value renders, with no problem, to the value; unescapeTemplates reads it as the renderer does', () => {
    fc.assert(
      fc.property(json, (live) => {
        const written = escapeTemplates(live);
        expect(rendered(written)).toEqual({ value: live, problems: [] });
        expect(unescapeTemplates(written)).toEqual(live);
      }),
    );
  });

  it('a pulled dashboard file, parsed and rendered, is the live dashboard', () => {
    fc.assert(
      fc.property(text, fc.array(text, { maxLength: 3 }), (name, markdowns) => {
        const live = { dashboardMetadata: { name, owner: 'ops' }, tiles: markdowns.map((markdown) => ({ name: 'n', tileType: 'MARKDOWN', markdown })) };
        expect(rendered(parse(toDashboardYaml(escapeTemplates(live))))).toEqual({ value: live, problems: [] });
      }),
    );
  });
});
