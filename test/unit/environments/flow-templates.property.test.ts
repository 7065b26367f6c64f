import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unquotedFlowTemplates } from '../../../src/environments/flow-templates.js';
import { parseTemplateFile } from '../../../src/environments/load-templates.js';

const piece = fc.constantFrom('[', ']', '{', '}', 'a', ' ', ',', '\n', '${{', '}}', ' x ', 'k: ', '$');

describe('unquotedFlowTemplates', () => {
  it('takes each template to the first }} after it on its line, whatever the text around it', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const source = `tiles: ${pieces.join('')}`;
        for (const found of unquotedFlowTemplates(source)) {
          const close = source.indexOf('}}', found.offset);
          const eol = source.indexOf('\n', found.offset);
          expect(close).not.toBe(-1);
          expect(eol === -1 || close < eol).toBe(true);
          expect(found.template).toBe(source.slice(found.offset, close + 2));
          expect(found.scalar.end).toBeGreaterThanOrEqual(close + 2);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('closes a template at the first }} on its line, and takes a second in the same scalar as part of the first', () => {
    const source = 'tiles: [a${{ x } }, b${{ y }}c${{ z }}d, e${{ w }}]\n';
    expect(unquotedFlowTemplates(source).map((f) => [f.template, source.slice(f.scalar.start, f.scalar.end)])).toEqual([
      ['${{ x } }, b${{ y }}', 'a${{ x } }, b${{ y }}c${{ z }}d'],
      ['${{ w }}', 'e${{ w }}'],
    ]);
  });

  it('reads a committed file of ten thousand templates on one line once, open or closed', () => {
    // From every one of them the search for its }} ran to the end of the file, and every problem split the text
    // before it into lines again: 5–7 s of a daemon pass for a few hundred kB.
    const closed = `dashboardMetadata: {name: n, owner: o}\ntiles: [${'a${{b}},'.repeat(10_000)}]\n`;
    const open = `dashboardMetadata: {name: n, owner: o}\ntiles: [${'a${{b} },'.repeat(10_000)}]\n`;
    expect(unquotedFlowTemplates(closed)).toHaveLength(10_000);
    expect(unquotedFlowTemplates(open)).toEqual([]);
    const parsed = parseTemplateFile(closed);
    expect(parsed.problems).toHaveLength(10_000);
    expect(parsed.problems?.[9_999]).toMatchObject({ line: 2, col: 9 + 9_999 * 8 + 1 });
  });
});
