import { describe, expect, it } from 'vitest';
import { renderTemplates } from '../../../src/environments/render-templates.js';
import { pulledDocument } from '../../../src/pull/pulled-document.js';
import { escapeTemplates, PLAIN_STRINGS, TEMPLATE_STRINGS, unescapeTemplates } from '../../../src/pull/template-literals.js';
import type { LiveDocumentBody } from '../../../src/schema/document-content.js';

/** What a file means in an environment when it holds no template: the renderer's reading of its literal forms. */
function rendered(value: unknown): unknown {
  const result = renderTemplates(value, { env: { name: 'dev', group: null }, values: {}, dashboardId: () => ({ problem: 'none' }), maxInserted: Number.MAX_SAFE_INTEGER });
  expect(result.problems).toEqual([]);
  return result.value;
}

describe('escapeTemplates (live strings as a templated file writes them)', () => {
  it('writes every ${{ of a string as the literal form $${{, and a $ before it as one more', () => {
    expect(escapeTemplates('Set `token: ${{ secrets.DT_TOKEN }}`, then ${{ x }}')).toBe('Set `token: $${{ secrets.DT_TOKEN }}`, then $${{ x }}');
    expect(escapeTemplates('$${{ a }}')).toBe('$$${{ a }}');
    expect(escapeTemplates('${{${{')).toBe('$${{$${{');
    expect(escapeTemplates('${{')).toBe('$${{');
  });

  it('leaves text that is no template as it is: shell ${VAR}, {{ … }}, a lone $', () => {
    expect(escapeTemplates('echo ${HOME} {{ x }} $ { {')).toBe('echo ${HOME} {{ x }} $ { {');
    expect(escapeTemplates('')).toBe('');
  });

  it('escapes strings at any depth, keeps keys (never templates) and every other value, and copies', () => {
    const live = { name: 'CI ${{ a }}', tiles: [{ markdown: '${{ b }}', bounds: { top: 0 } }, '${{ c }}', 3, true, null], '${{ key }}': 'v' };
    const before = structuredClone(live);
    expect(escapeTemplates(live)).toEqual({ name: 'CI $${{ a }}', tiles: [{ markdown: '$${{ b }}', bounds: { top: 0 } }, '$${{ c }}', 3, true, null], '${{ key }}': 'v' });
    expect(live).toEqual(before);
    expect(escapeTemplates(null)).toBeNull();
    expect(escapeTemplates(7)).toBe(7);
    expect(escapeTemplates(false)).toBe(false);
    expect(escapeTemplates(undefined)).toBeUndefined();
  });

  it('keeps a `__proto__` member an own member', () => {
    const live = JSON.parse('{"__proto__": {"markdown": "${{ x }}"}}') as Record<string, unknown>;
    const written = escapeTemplates(live);
    expect(Object.getPrototypeOf(written)).toBe(Object.prototype);
    expect(Object.hasOwn(written, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(written, '__proto__')?.value).toEqual({ markdown: '$${{ x }}' });
  });

  it('gives a file the renderer reads back as the live value', () => {
    const live = { markdown: 'Set `${{ secrets.DT_TOKEN }}` and $${{ x }}, $$${{ y }} $', tags: ['${{ env.group }}', ''], '${{ key }}': '${{' };
    expect(rendered(escapeTemplates(live))).toEqual(live);
  });
});

describe('unescapeTemplates (what a written file means)', () => {
  it('reads each literal form $${{ as ${{, as the renderer does', () => {
    const written = { a: 'Set $${{ s }} and $$${{ t }}', b: ['$${{$${{', '$ {{'], '$${{ key }}': 1 };
    expect(unescapeTemplates(written)).toEqual({ a: 'Set ${{ s }} and $${{ t }}', b: ['${{${{', '$ {{'], '$${{ key }}': 1 });
    expect(unescapeTemplates(written)).toEqual(rendered(written));
  });

  it('undoes escapeTemplates', () => {
    const live = ['${{ a }}', '$${{', '$$${{ b }}}}', '${{${{'];
    expect(unescapeTemplates(escapeTemplates(live))).toEqual(live);
  });
});

describe('the strings of the two kinds of project', () => {
  it('writes and reads strings as they are where files are no templates', () => {
    const value = { markdown: '${{ x }} $${{ y }}' };
    expect(PLAIN_STRINGS.written(value)).toBe(value);
    expect(PLAIN_STRINGS.meant(value)).toBe(value);
  });

  it('escapes and reads back where they are', () => {
    expect(TEMPLATE_STRINGS.written('${{ x }}')).toBe('$${{ x }}');
    expect(TEMPLATE_STRINGS.meant('$${{ x }}')).toBe('${{ x }}');
  });
});

describe('pulledDocument in a project with environments', () => {
  it('writes the literal forms in the file (name, description, content) while its value keeps the live text', () => {
    const live = { document: { kind: 'notebook', name: 'CI ${{ x }}', description: 'See ${{ y }}', version: 2 }, version: '7', sections: [{ id: 'a', type: 'markdown', markdown: '${{ z }}' }] };
    const pulled = pulledDocument('ci', live as unknown as LiveDocumentBody, 'managed-by:dashcd', TEMPLATE_STRINGS.written);
    expect('fileText' in pulled && { ...pulled, fileText: pulled.fileText() }).toStrictEqual({
      name: 'CI ${{ x }}',
      value: { document: { kind: 'notebook', name: 'CI ${{ x }}', description: 'See ${{ y }}' }, version: '7', sections: [{ id: 'a', type: 'markdown', markdown: '${{ z }}' }] },
      fileText: 'document:\n  kind: notebook\n  id: ci\n  name: CI $${{ x }}\n  description: See $${{ y }}\nversion: "7"\nsections:\n  - id: a\n    type: markdown\n    markdown: $${{ z }}\n',
    });
  });
});
